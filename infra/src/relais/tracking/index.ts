import type { RelaisNetwork } from '@cagnotte/event-schemas';
import { parseChronopostTracking } from './chronopost';
import { parseColissimoTracking } from './colissimo';
import { parseInpostPush } from './inpost';
import { parseMondialRelayTracing } from './mondial-relay';
import type { TrackingPayloadParser } from './payload';
import { parseSandboxPush, sandboxPushNetwork } from './sandbox';

export * from './signature';
export * from './secrets';
export { COLISSIMO_EVENT_CODES } from './colissimo';
export { CHRONOPOST_EVENT_CODES } from './chronopost';
export { INPOST_STATUSES } from './inpost';
export { MONDIAL_RELAY_LABEL_RULES, mondialRelayStatusOf } from './mondial-relay';
export { SANDBOX_EVENT_CODES, sandboxCodeOf, type SandboxPush } from './sandbox';
export { TRACKING_NUMBER, type TrackingPayloadParser } from './payload';

/** The networks whose carriers push tracking updates (the community network's hosts report receptions themselves). */
export type CarrierNetwork = Exclude<RelaisNetwork, 'community'>;
export const CARRIER_NETWORKS: readonly CarrierNetwork[] = ['mondial_relay', 'colissimo', 'chronopost', 'inpost', 'sandbox'];

const PARSERS: Record<CarrierNetwork, TrackingPayloadParser> = {
  mondial_relay: parseMondialRelayTracing,
  colissimo: parseColissimoTracking,
  chronopost: parseChronopostTracking,
  inpost: parseInpostPush,
  sandbox: parseSandboxPush,
};

export const isCarrierNetwork = (network: string): network is CarrierNetwork => (CARRIER_NETWORKS as readonly string[]).includes(network);

/** A network's payload as tracking updates (throws a 400 `invalid_payload` when it is not the network's shape). */
export const parseTrackingPayload = (network: CarrierNetwork, payload: unknown) => PARSERS[network](payload);

/** The network an update of the payload is reported for: the webhook's own, but a sandbox push may name `community`. */
export const reportedNetworkOf = (network: CarrierNetwork, payload: unknown): RelaisNetwork => (network === 'sandbox' ? sandboxPushNetwork(payload) : network);
