export * from './tables';
export * from './fold';
export * from './cards';
export * from './reader';
