export * from './fold';
export { uuidOfPrefixed } from './ids';
export * from './view';
export * from './reader';
export * from './reconcile';
