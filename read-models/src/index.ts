export * from './pools';
export * from './shared';
export * from './identity';
export * from './mandates';
export * from './personas';
export * from './catalogue';
export * from './search';
export * from './reservations';
