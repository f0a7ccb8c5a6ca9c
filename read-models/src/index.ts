export * from './pools';
