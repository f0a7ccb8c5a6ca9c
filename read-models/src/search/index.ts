export * from './listings';
export * from './sources';
export * from './view';
