export * from './view';
export * from './tables';
export * from './fold';
export * from './reader';
export * from './amounts';
export * from './dashboard';
export * from './escrow-facts';
export * from './pool-actions';
