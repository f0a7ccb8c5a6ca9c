export * from './pools/visibility';
export * from './shared';
export * from './identity';
export * from './mandates';
export * from './personas';
