export * from './fold';
export * from './ids';
export * from './view';
export * from './reader';
export * from './reconcile';
