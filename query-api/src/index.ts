export * from './app';
export * from './identity/routes';
export * from './mandates/routes';
export * from './personas/routes';
export * from './catalogue/merchant-profile';
export * from './audit/routes';
export * from './audit/verify';
export { NotYetExistingError } from './audit/state-route';
export * from './webhooks/feed-routes';
