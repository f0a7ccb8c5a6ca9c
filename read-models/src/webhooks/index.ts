export * from './principal';
export * from './consumer-group';
