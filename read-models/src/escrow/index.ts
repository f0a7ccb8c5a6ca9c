export * from './document';
export * from './fold';
export * from './view';
export * from './tables';
export * from './reader';
export * from './reconcile';
export * from './reconcile-facts';
