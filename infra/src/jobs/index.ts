export * from './port';
export * from './bullmq';
export * from './scheduler';
