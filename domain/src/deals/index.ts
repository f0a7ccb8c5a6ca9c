export * from './split';
export * from './state';
export * from './decide';
