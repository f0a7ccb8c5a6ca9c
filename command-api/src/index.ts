export * from './app';
export * from './identity/register';
export * from './identity/mandates';
export * from './shared/context';
export * from './shared/run-command';
export * from './pools/schemas';
export * from './auth/routes';
