export * from './principal';
export * from './catalogue';
export * from './feed-table';
export * from './schema-compat';
