export * from './tenants';
export * from './accounts';
export * from './fold';
export * from './me-view';
