export * from './runtime';
export * from './pools/fold';
export * from './pools/projection';
export * from './identity/projection';
import { poolsProjection } from './pools/projection';
import { identityProjection } from './identity/projection';

/** Every projection the service runs, in the order a catch-up applies them. */
export const allProjections = [identityProjection, poolsProjection];
/** Projections a read after a pool command waits for (read-your-writes). */
export const POOL_READ_PROJECTIONS = ['pools'];
