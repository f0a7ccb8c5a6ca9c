export * from './principal';
export * from './event-types';
export * from './endpoints';
export * from './inbox';
export * from './catalogue';
export * from './feed-table';
export * from './schema-compat';
