export * from './principal';
export * from './consumer-group';
export * from './event-types';
export * from './endpoints';
export * from './inbox';
