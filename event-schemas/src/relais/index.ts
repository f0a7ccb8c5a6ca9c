export * from './point';
export * from './events';
export * from './adapter';
