export * from './tables';
export * from './view';
export * from './redact';
export * from './reader';
export * from './state';
