import type { Knex } from 'knex';
import { ACCOUNTS_TABLE } from '../identity/accounts';
import { AUDIT_TABLES } from '../audit/tables';
import { isUuid } from '../shared';

/**
 * Who reads a tenant's events (the feed, its stream) and owns its webhook endpoints, and what they may see.
 *
 * - `auditor`: an auditor of the tenant (a session): every public event of the tenant.
 * - `organiser`: an organiser of the tenant (a session): the events about their own resources (`ownerId`), never
 *   another organiser's buyers (another owner's resource is a 404, the contract).
 * - `api_key` (the `/v1` keys, when they land): the tenant's credentials, every public event of the tenant. A key
 *   resolves to this same shape, so the feed, the stream and the webhooks take it without change.
 *
 * `ownerId` null means the whole tenant. A reader never sees another tenant's event, whatever the cursor: every query
 * of the feed is `tenant_id = principal.tenantId` first.
 */
export interface EventPrincipal {
  kind: 'auditor' | 'organiser' | 'api_key';
  tenantId: string;
  /** The organiser whose events these are; null for the whole tenant. */
  ownerId: string | null;
  /** Who acts (the session's user, or the key's id): recorded as `created_by` on what they create. */
  actorId: string;
  /**
   * The mode whose events the principal reads and whose endpoints it owns: an API key's (`sk_live_` or `sk_test_`),
   * else the deployment's (live in production). See `publicEventLivemode`.
   */
  livemode: boolean;
  /** The deployment's mode: that of every event whose data names none (the `/api` resources' events). */
  deploymentLive: boolean;
}

/**
 * The mode of a public event: its data's `livemode` when it has one (the /v1 objects' events), else the deployment's.
 * One rule, one place: the feed's SQL (`whereMode`) and the webhook dispatcher both follow it.
 */
export const publicEventLivemode = (data: unknown, deploymentLive: boolean): boolean => {
  const mode = data && typeof data === 'object' ? (data as { livemode?: unknown }).livemode : undefined;
  return typeof mode === 'boolean' ? mode : deploymentLive;
};

interface PrincipalContext {
  auth: { userId: string; tenantId: string } | null;
  tenant: { id: string } | null;
  /** The API key of the request, if one authenticated it: its mode is the principal's. */
  apiKey?: { id: string; livemode: boolean } | null;
}

export interface EventPrincipalLookup {
  resolve(ctx: PrincipalContext): Promise<EventPrincipal | null>;
}

/**
 * Resolves a session to its principal: an auditor of the request's tenant first, else an organiser of it; null for
 * anyone else, which the routes answer with the 404 a missing resource gets (the feed does not say what exists).
 */
export class SessionEventPrincipals implements EventPrincipalLookup {
  constructor(
    private readonly knex: Knex,
    /** Whether the deployment is production (its sessions and its /api resources are live). */
    private readonly production = false,
  ) {}

  async resolve(ctx: PrincipalContext): Promise<EventPrincipal | null> {
    const auth = ctx.auth;
    // A token of another tenant never counts, whatever X-Service-Tenant says.
    if (!auth || !ctx.tenant || auth.tenantId !== ctx.tenant.id || !isUuid(auth.userId) || !isUuid(auth.tenantId)) return null;
    const [auditor, account] = await Promise.all([
      this.knex(AUDIT_TABLES.auditors).where({ tenant_id: auth.tenantId, user_id: auth.userId, active: true }).first('user_id'),
      this.knex(ACCOUNTS_TABLE).where({ id: auth.userId, tenant_id: auth.tenantId }).first('role'),
    ]);
    const mode = { livemode: ctx.apiKey ? ctx.apiKey.livemode : this.production, deploymentLive: this.production };
    if (auditor) return { kind: 'auditor', tenantId: auth.tenantId, ownerId: null, actorId: auth.userId, ...mode };
    if ((account as { role?: string } | undefined)?.role === 'organiser') return { kind: 'organiser', tenantId: auth.tenantId, ownerId: auth.userId, actorId: auth.userId, ...mode };
    return null;
  }
}
