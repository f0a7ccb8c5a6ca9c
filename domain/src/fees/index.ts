export * from './schedule';
export * from './rounding';
export * from './fee';
export * from './vat';
export * from './commission';
export * from './quote';
