export * from './events';
export * from './stream';
