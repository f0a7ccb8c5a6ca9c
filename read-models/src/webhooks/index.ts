export * from './principal';
export * from './cursor';
export * from './feed-reader';
