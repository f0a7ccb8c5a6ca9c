export * from './tables';
export * from './fold';
export * from './view';
export * from './reader';
export * from './visibility';
export * from './closing';
export * from './v1';
export * from './v1-reader';
