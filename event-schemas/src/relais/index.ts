export * from './point';
export * from './events';
