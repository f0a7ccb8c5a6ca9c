export * from './principal';
// The catalogue's channel name and the cursor's FeedPosition are the same values and shape as consumer-group's own.
export { CONSUMER_GROUPS_TABLE, ConsumerGroup, notifyPublicEvents, positionBefore, type BatchHandler, type BatchResult, type ConsumedEvent, type ConsumerGroupOptions, type RunOptions } from './consumer-group';
export * from './event-types';
export * from './endpoints';
export * from './inbox';
export * from './catalogue';
export * from './feed-table';
export * from './schema-compat';
export * from './cursor';
export * from './feed-reader';
export * from './type-match';
