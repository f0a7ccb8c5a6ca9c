export * from './reader';
