export * from './define';
export * from './common';
export * from './pools';
export * from './identity';
export * from './catalogue';
export * from './mandates/texts';
export * from './registry';
