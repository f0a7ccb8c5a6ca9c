import { NotFoundError, decideTenant, tenantAggregate, type TenantCommand } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import type { Position } from '@cagnotte/infra';
import { loadAccount, tenantStream } from '../shared/context';
import { loadState, type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';

export interface AuditorChange {
  tenantId: string;
  userId: string;
  /** Whether the user is an auditor of the tenant after the command. */
  auditor: boolean;
  /** False when the command recorded nothing (already an auditor, or not one to revoke). */
  changed: boolean;
  auditors: string[];
  position: Position | null;
}

type AuditorCommand = Extract<TenantCommand, { type: 'GrantAuditor' | 'RevokeAuditor' }>;

/**
 * Both commands run on the tenant's stream (`tenant-<slug>`). The tenant is read first only to stamp its id in the
 * events' metadata, as every event of a tenant carries it.
 */
const onTenant = async (
  runtime: CommandRuntime,
  slug: string,
  userId: string,
  command: (now: string) => Promise<AuditorCommand>,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<AuditorChange> => {
  const tenant = await loadState(runtime.store, tenantStream(slug), tenantAggregate);
  if (tenant.status === 'none') throw new NotFoundError('tenant');
  const decided = await command(metadata.occurredAt);
  const outcome = await executeCommand(runtime, {
    stream: tenantStream(slug),
    aggregate: tenantAggregate,
    decide: (state) => decideTenant(decided, state),
    metadata: { ...metadata, tenantId: tenant.tenantId },
  });
  const auditors = outcome.state.status === 'none' ? [] : outcome.state.auditors;
  return { tenantId: tenant.tenantId, userId, auditor: auditors.includes(userId), changed: outcome.events.length > 0, auditors, position: outcome.position };
};

/**
 * `pnpm cli auditor grant`: the user must be an account of the tenant, as the account's own stream says (the CLI
 * found the id through the accounts read model, which may lag or be rebuilt; the stream is the source of truth).
 */
export const grantAuditor = (runtime: CommandRuntime, input: { slug: string; userId: string }, metadata: Omit<EventMetadata, 'tenantId'>): Promise<AuditorChange> =>
  onTenant(
    runtime,
    input.slug,
    input.userId,
    async (now) => {
      const account = await loadAccount(runtime.store, input.userId);
      return { type: 'GrantAuditor', data: { userId: input.userId, accountTenantId: account.status === 'none' ? null : account.tenantId }, metadata: { now } };
    },
    metadata,
  );

/** `pnpm cli auditor revoke`: revoking someone who is not an auditor records nothing. */
export const revokeAuditor = (runtime: CommandRuntime, input: { slug: string; userId: string }, metadata: Omit<EventMetadata, 'tenantId'>): Promise<AuditorChange> =>
  onTenant(runtime, input.slug, input.userId, async (now) => ({ type: 'RevokeAuditor', data: { userId: input.userId }, metadata: { now } }), metadata);
