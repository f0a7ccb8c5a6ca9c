export * from './keys';
export * from './routes';
export * from './verification';
