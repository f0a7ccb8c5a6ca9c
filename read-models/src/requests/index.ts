export * from './fold';
export * from './reader';
export * from './view';
