export * from './ids';
export * from './fold';
export * from './tables';
export * from './requirements';
export * from './in-escrow';
export * from './view';
export * from './reader';
