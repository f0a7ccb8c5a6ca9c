import { NotFoundError, decideTenant, tenantAggregate, type TenantCommand } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import type { EventStore, Position } from '@cagnotte/infra';
import { tenantStream } from '../shared/context';
import { executeCommand } from '../shared/execute-command';
import { loadState, type CommandRuntime } from '../shared/run-command';

export interface TenantVerification {
  tenantId: string;
  slug: string;
  verifiedAt: string | null;
  changed: boolean;
  position: Position | null;
}

type VerificationCommand = Extract<TenantCommand, { type: 'VerifyTenant' | 'WithdrawTenantVerification' }>;

const onTenant = async (runtime: CommandRuntime, slug: string, command: VerificationCommand, metadata: Omit<EventMetadata, 'tenantId'>): Promise<TenantVerification> => {
  const tenant = await loadState(runtime.store, tenantStream(slug), tenantAggregate);
  if (tenant.status === 'none') throw new NotFoundError('tenant');
  const outcome = await executeCommand(runtime, {
    stream: tenantStream(slug),
    aggregate: tenantAggregate,
    decide: (state) => decideTenant(command, state),
    metadata: { ...metadata, tenantId: tenant.tenantId },
  });
  const verifiedAt = outcome.state.status === 'none' ? null : outcome.state.verifiedAt;
  return { tenantId: tenant.tenantId, slug, verifiedAt, changed: outcome.events.length > 0, position: outcome.position };
};

/** `pnpm cli tenant verify <slug>`: the operator verified the business; live API keys may be issued to it. */
export const verifyTenant = (runtime: CommandRuntime, input: { slug: string; note: string | null }, metadata: Omit<EventMetadata, 'tenantId'>) =>
  onTenant(runtime, input.slug, { type: 'VerifyTenant', data: { note: input.note }, metadata: { now: metadata.occurredAt } }, metadata);

/** `pnpm cli tenant unverify <slug>`: no new live key; the keys issued stay until revoked (`api-keys revoke`). */
export const withdrawTenantVerification = (runtime: CommandRuntime, input: { slug: string; note: string | null }, metadata: Omit<EventMetadata, 'tenantId'>) =>
  onTenant(runtime, input.slug, { type: 'WithdrawTenantVerification', data: { note: input.note }, metadata: { now: metadata.occurredAt } }, metadata);

/** Whether the tenant is verified now, as its own stream says (read when a live key is asked for: rare). */
export const isTenantVerified = async (store: EventStore, slug: string): Promise<boolean> => {
  const tenant = await loadState(store, tenantStream(slug), tenantAggregate);
  return tenant.status === 'created' && tenant.verifiedAt !== null;
};
