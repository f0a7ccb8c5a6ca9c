export * from './pools/visibility';
