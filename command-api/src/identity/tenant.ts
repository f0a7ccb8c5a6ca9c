import { randomUUID } from 'node:crypto';
import { decideTenant, tenantAggregate } from '@cagnotte/domain';
import type { EventData, EventMetadata, TenantSettings } from '@cagnotte/event-schemas';
import type { Config, Position } from '@cagnotte/infra';
import type { TenantPolicy } from '../pools/handler';
import { tenantStream } from '../shared/context';
import { loadState, runCommand, type CommandRuntime } from '../shared/run-command';

export interface CreateTenantInput {
  slug: string;
  name?: string | undefined;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

/**
 * Creates `tenant-<slug>`. A taken slug is a conflict (409 tenant_exists): decided on the stream, and when two
 * creations race, the loser's append fails on no_stream and its retry decides again on the stream the winner made.
 */
export const createTenant = async (
  runtime: CommandRuntime,
  input: CreateTenantInput,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<{ tenant: EventData<'TenantCreated'>; position: Position }> => {
  const tenantId = randomUUID();
  const outcome = await runCommand(
    runtime,
    tenantStream(input.slug),
    tenantAggregate,
    (state) =>
      decideTenant(
        {
          type: 'CreateTenant',
          data: { tenantId, slug: input.slug, name: input.name ?? input.slug, whiteLabel: input.whiteLabel, approvedOrigins: input.approvedOrigins },
          metadata: { now: metadata.occurredAt },
        },
        state,
      ),
    { ...metadata, tenantId },
  );
  const created = outcome.events[0]!;
  if (created.type !== 'TenantCreated') throw new Error('createTenant: the tenant was not created');
  return { tenant: created.data, position: outcome.position! };
};

/** A tenant's settings as its stream says (the service's defaults for what it never set). */
export const loadTenantSettings = async (store: CommandRuntime['store'], slug: string): Promise<TenantSettings> => {
  const tenant = await loadState(store, tenantStream(slug), tenantAggregate);
  return tenant.status === 'none' ? {} : tenant.settings;
};

/** A tenant's commercial settings with the service's defaults filled in, from its own stream (found by its id through the tenants read model). */
export const makeTenantPolicy =
  (deps: { store: CommandRuntime['store']; tenants: { byId(id: string): Promise<{ slug: string } | null> }; config: Config }) =>
  async (tenantId: string): Promise<TenantPolicy> => {
    const { config } = deps;
    const tenant = await deps.tenants.byId(tenantId);
    const settings = tenant ? await loadTenantSettings(deps.store, tenant.slug) : {};
    return {
      reservationTtlSeconds: settings.reservationTtlSeconds ?? config.RESERVATION_TTL_SECONDS,
      listingFees: settings.listingFees ?? { LISTED: config.LISTING_FEE_LISTED, FEATURED: config.LISTING_FEE_FEATURED },
      delistRefundWindowHours: settings.delistRefundWindowHours ?? config.DELIST_REFUND_WINDOW_HOURS,
      platformFeePercent: settings.platformFeePercent ?? config.PLATFORM_FEE_PERCENT,
      inspectionDays: settings.inspectionDays ?? config.INSPECTION_DAYS,
      disputeResponseDays: settings.disputeResponseDays ?? config.DISPUTE_RESPONSE_DAYS,
    };
  };

/** `pnpm cli tenant-settings`: records what changes (nothing when the values are already these). */
export const changeTenantSettings = async (
  runtime: CommandRuntime,
  slug: string,
  settings: TenantSettings,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<{ settings: TenantSettings; position: Position | null }> => {
  const outcome = await runCommand(
    runtime,
    tenantStream(slug),
    tenantAggregate,
    (state) => decideTenant({ type: 'ChangeTenantSettings', data: { settings }, metadata: { now: metadata.occurredAt } }, state),
    { ...metadata, tenantId: null },
  );
  return { settings: outcome.state.status === 'none' ? {} : outcome.state.settings, position: outcome.position };
};
