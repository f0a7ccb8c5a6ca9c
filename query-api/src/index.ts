export * from './app';
export * from './auth/routes';
export * from './merchants/routes';
