export * from './fold';
export * from './tables';
export * from './view';
export * from './reader';
