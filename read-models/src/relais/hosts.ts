export * from './hosts-view';
export * from './hosts-fold';
export * from './hosts-tables';
export * from './hosts-reader';
