export * from './principal';
export * from './event-types';
export * from './endpoints';
export * from './inbox';
