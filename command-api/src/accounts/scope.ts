import { ForbiddenError, NotFoundError, type Account, type RegisteredAccount } from '@cagnotte/domain';
import { livemodeOf, type EventStore, type RequestContext } from '@cagnotte/infra';
import type { V1AccountFacts, V1AccountFigures } from '@cagnotte/read-models';
import { loadActor, requireOwnTenant } from '../shared/context';

/** Whose accounts a /v1 command reaches: the key's tenant, the key's mode (a signup's account is the environment's mode). */
export interface PartnerScope {
  tenantId: string;
  livemode: boolean;
  defaultLivemode: boolean;
}

/** Who acts on /v1 accounts and transfers: an API key, or an organiser's session, and the scope it reaches. */
export interface PartnerActor extends PartnerScope {
  /** The key's id (its uuid), null for a session: recorded as `createdVia`. */
  keyId: string | null;
}

/**
 * A key acts as its owner, an organiser of the tenant (docs/v1.md), and reaches the tenant's accounts of its mode; an
 * organiser's session reaches the same in the deployment's mode. Anyone else is a 403 `organiser_required`.
 */
export const partnerActor = async (
  ctx: Pick<RequestContext<unknown, unknown, unknown>, 'auth' | 'apiKey' | 'tenant'>,
  deps: { store: EventStore; production: boolean },
): Promise<PartnerActor> => {
  const auth = ctx.auth!;
  const scope = { livemode: livemodeOf(ctx, deps.production), defaultLivemode: deps.production };
  if (ctx.apiKey) return { ...scope, tenantId: ctx.apiKey.tenantId, keyId: ctx.apiKey.id };
  const tenant = requireOwnTenant(auth, ctx.tenant);
  const actor = await loadActor(deps.store, auth);
  if (actor.role !== 'organiser') throw new ForbiddenError('organiser_required', 'Accounts and transfers are managed by the tenant’s organisers and their API keys');
  return { ...scope, tenantId: tenant.id, keyId: null };
};

/**
 * The account as its stream says now, if the caller may reach it; another tenant's, the other mode's and a missing
 * one are the same 404. Pure: decided on the state the command decides on.
 */
export const accountInScope = (account: Account, scope: PartnerScope): RegisteredAccount => {
  if (account.status === 'none' || account.tenantId !== scope.tenantId || (account.partner?.livemode ?? scope.defaultLivemode) !== scope.livemode) {
    throw new NotFoundError('account');
  }
  return account;
};

/** The account's facts as /v1 renders them, from the command's own state. */
export const accountFactsOf = (a: RegisteredAccount): V1AccountFacts => ({
  userId: a.userId,
  livemode: a.partner?.livemode ?? null,
  email: a.email,
  name: a.displayName,
  accountType: a.accountType,
  country: a.country,
  business: a.business,
  wallet: a.ledgerAccount,
  metadata: a.metadata,
  createdAt: a.registeredAt,
});

/** A new account's figures: no wallet, nothing sent, nothing in escrow. */
export const NO_FIGURES: V1AccountFigures = { onLedger: null, pending: 0n, inEscrow: 0n };
