export * from './errors';
export * from './money';
export * from './pools/pool';
export * from './identity/identity';
export * from './equal';
export * from './ids';
export * from './catalogue/merchant';
export * from './catalogue/lead';
