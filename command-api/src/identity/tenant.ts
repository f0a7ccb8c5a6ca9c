import { randomUUID } from 'node:crypto';
import { canonicalSchedule, decideTenant, defaultFeeSchedule, tenantAggregate, type Tenant } from '@cagnotte/domain';
import type { EventData, EventMetadata, FeeSchedule, TenantSettings } from '@cagnotte/event-schemas';
import type { Config, Position } from '@cagnotte/infra';
import { tenantStream } from '../shared/context';
import { loadState, type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';

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
  const outcome = await executeCommand(runtime, {
    stream: tenantStream(input.slug),
    aggregate: tenantAggregate,
    decide: (state) =>
      decideTenant(
        {
          type: 'CreateTenant',
          data: { tenantId, slug: input.slug, name: input.name ?? input.slug, whiteLabel: input.whiteLabel, approvedOrigins: input.approvedOrigins },
          metadata: { now: metadata.occurredAt },
        },
        state,
      ),
    metadata: { ...metadata, tenantId },
  });
  const created = outcome.events[0]!;
  if (created.type !== 'TenantCreated') throw new Error('createTenant: the tenant was not created');
  return { tenant: created.data, position: outcome.position! };
};

/** A tenant's settings as its stream says (the service's defaults for what it never set). */
export const loadTenantSettings = async (store: CommandRuntime['store'], slug: string): Promise<TenantSettings> => {
  const tenant = await loadState(store, tenantStream(slug), tenantAggregate);
  return tenant.status === 'none' ? {} : tenant.settings;
};

type PolicyConfig = Pick<Config, 'RESERVATION_TTL_SECONDS' | 'LISTING_FEE_LISTED' | 'LISTING_FEE_FEATURED' | 'DELIST_REFUND_WINDOW_HOURS' | 'PLATFORM_FEE_PERCENT' | 'INSPECTION_DAYS' | 'DISPUTE_RESPONSE_DAYS'>;

/**
 * A tenant's fee schedule in force: the one an operator set, else the default made of its settings (docs/fees.md).
 * Once a schedule is set it is where the listing fees and the payment fee's percent come from.
 */
export const feeScheduleOf = (tenant: Tenant, config: PolicyConfig): FeeSchedule => {
  if (tenant.status !== 'none' && tenant.feeSchedule) return tenant.feeSchedule;
  const settings = tenant.status === 'none' ? {} : tenant.settings;
  return defaultFeeSchedule({
    platformFeePercent: settings.platformFeePercent ?? config.PLATFORM_FEE_PERCENT,
    listingFees: settings.listingFees ?? { LISTED: config.LISTING_FEE_LISTED, FEATURED: config.LISTING_FEE_FEATURED },
  });
};

/** A tenant's commercial settings with the service's defaults filled in: what its commands are decided under. */
export interface TenantPolicy {
  reservationTtlSeconds: number;
  listingFees: { LISTED: string; FEATURED: string };
  delistRefundWindowHours: number;
  platformFeePercent: string;
  inspectionDays: number;
  disputeResponseDays: number;
  /** The fee schedule in force (docs/fees.md): the one set, else the default made of the settings above. */
  feeSchedule: FeeSchedule;
  /** Who invoices the platform fee: its tax country and VAT id (config PLATFORM_COUNTRY, PLATFORM_VAT_ID). */
  platform: { id: string; country: string; vatId: string | null };
}

/** The policy of a tenant as its stream folds it (`none`: the service's defaults). Pure. */
export const tenantPolicyOf = (tenant: Tenant, config: Config): TenantPolicy => {
  const settings = tenant.status === 'none' ? {} : tenant.settings;
  const feeSchedule = feeScheduleOf(tenant, config);
  return {
    reservationTtlSeconds: settings.reservationTtlSeconds ?? config.RESERVATION_TTL_SECONDS,
    listingFees: feeSchedule.listing,
    delistRefundWindowHours: settings.delistRefundWindowHours ?? config.DELIST_REFUND_WINDOW_HOURS,
    platformFeePercent: feeSchedule.payment.percent,
    inspectionDays: settings.inspectionDays ?? config.INSPECTION_DAYS,
    disputeResponseDays: settings.disputeResponseDays ?? config.DISPUTE_RESPONSE_DAYS,
    feeSchedule,
    platform: { id: 'platform', country: config.PLATFORM_COUNTRY, vatId: config.PLATFORM_VAT_ID ?? null },
  };
};

/**
 * A tenant's policy read afresh from its own stream (found by its id through the tenants read model), for the jobs.
 * The routes ask the facts cache instead (shared/facts.ts), which reads only the stream's tail.
 */
export const makeTenantPolicy =
  (deps: { store: CommandRuntime['store']; tenants: { byId(id: string): Promise<{ slug: string } | null> }; config: Config }) =>
  async (tenantId: string): Promise<TenantPolicy> => {
    const ref = await deps.tenants.byId(tenantId);
    const tenant: Tenant = ref ? await loadState(deps.store, tenantStream(ref.slug), tenantAggregate) : { status: 'none' };
    return tenantPolicyOf(tenant, deps.config);
  };

/** `pnpm cli tenant fees`: the schedule in force, or records `change(schedule)` when it differs (nothing otherwise). */
export const setTenantFeeSchedule = async (
  runtime: CommandRuntime,
  config: PolicyConfig,
  slug: string,
  change: (current: FeeSchedule) => FeeSchedule,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<{ schedule: FeeSchedule; isDefault: boolean; position: Position | null }> => {
  const outcome = await executeCommand(runtime, {
    stream: tenantStream(slug),
    aggregate: tenantAggregate,
    decide: (state) => {
      const current = canonicalSchedule(feeScheduleOf(state, config));
      return decideTenant({ type: 'SetFeeSchedule', data: { schedule: canonicalSchedule(change(current)), current }, metadata: { now: metadata.occurredAt } }, state);
    },
    metadata: { ...metadata, tenantId: null },
  });
  const state = outcome.state;
  return { schedule: feeScheduleOf(state, config), isDefault: state.status === 'none' || state.feeSchedule === null, position: outcome.position };
};

/** `pnpm cli tenant-settings`: records what changes (nothing when the values are already these). */
export const changeTenantSettings = async (
  runtime: CommandRuntime,
  slug: string,
  settings: TenantSettings,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<{ settings: TenantSettings; position: Position | null }> => {
  const outcome = await executeCommand(runtime, {
    stream: tenantStream(slug),
    aggregate: tenantAggregate,
    decide: (state) => decideTenant({ type: 'ChangeTenantSettings', data: { settings }, metadata: { now: metadata.occurredAt } }, state),
    metadata: { ...metadata, tenantId: null },
  });
  return { settings: outcome.state.status === 'none' ? {} : outcome.state.settings, position: outcome.position };
};
