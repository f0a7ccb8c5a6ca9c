import { ValidationError, evolveMerchant, initialMerchant, isUuid, type Merchant } from '@cagnotte/domain';
import { parseEvent, type DomainEvent } from '@cagnotte/event-schemas';
import { lookupOrUnavailable, type EventStore } from '@cagnotte/infra';
import { merchantStream } from '../catalogue/merchants';
import type { CommandFacts } from '../shared/facts';

// The seller a command names, checked from the streams that own the facts (the account's, the merchant's).

/** What resolving a seller reads: the accounts (their streams, through the facts cache), the accounts index, the merchants' streams. */
export interface SellerDeps {
  store: EventStore;
  facts: Pick<CommandFacts, 'account'>;
  /** Resolves an email or phone to an account id: the one lookup no stream can answer (a stream is named by id). */
  accounts: { findInTenant(tenantId: string, identifier: string): Promise<{ id: string } | null> };
}

/** What a pool command may say about its seller: an id, or something the merchant path resolves to one. */
export interface SellerReference {
  sellerId?: string | null;
  sellerIdentifier?: string;
  sellerMerchantSlug?: string;
}

/** The account of that id, if it is a user of the tenant (its own stream says so). An outage is a 503. */
const accountInTenant = (deps: SellerDeps, tenantId: string, userId: string) =>
  lookupOrUnavailable(async () => {
    const account = await deps.facts.account(userId);
    return account.status !== 'none' && account.tenantId === tenantId ? account : null;
  });

/** `sellerIdentifier`: an id names a stream; an email or phone goes through the accounts index, then the stream decides. */
const accountByIdentifier = async (deps: SellerDeps, tenantId: string, identifier: string) => {
  if (isUuid(identifier)) return accountInTenant(deps, tenantId, identifier);
  const found = await lookupOrUnavailable(() => deps.accounts.findInTenant(tenantId, identifier));
  return found ? accountInTenant(deps, tenantId, found.id) : null;
};

/** The merchant as its stream (`merchant-<tenant>-<slug>`: the slug names it) folds it. */
const merchantOf = (store: EventStore, tenantId: string, slug: string): Promise<Merchant> =>
  lookupOrUnavailable(async () =>
    (await store.readStream(merchantStream(tenantId, slug))).map((r) => parseEvent(r) as DomainEvent).reduce(evolveMerchant, initialMerchant()),
  );

/**
 * Resolves and checks the seller a create or update names, inside the pool's tenant, for the caller:
 * - `sellerId` must be a user of the tenant;
 * - `sellerIdentifier` (id, email or phone) must find one;
 * - `sellerMerchantSlug` must be an ACTIVE merchant of the tenant that has an owner, and the caller must be that owner.
 * Each refusal is a 400 naming the field. A lookup the database cannot answer is a 503, never a 400.
 * Answers the seller id to record, `null` for none, or `undefined` when the input says nothing about the seller.
 */
export const resolveSeller = async (deps: SellerDeps, tenantId: string, callerId: string, input: SellerReference): Promise<string | null | undefined> => {
  if (input.sellerIdentifier !== undefined && input.sellerMerchantSlug !== undefined) {
    throw new ValidationError({ sellerIdentifier: ['give sellerIdentifier or sellerMerchantSlug, not both'] });
  }
  let resolved: string | undefined;
  if (input.sellerIdentifier !== undefined) {
    const account = await accountByIdentifier(deps, tenantId, input.sellerIdentifier);
    if (!account) throw new ValidationError({ sellerIdentifier: ['no account with this id, email or phone in the tenant'] });
    resolved = account.userId;
  } else if (input.sellerMerchantSlug !== undefined) {
    const merchant = await merchantOf(deps.store, tenantId, input.sellerMerchantSlug);
    if (merchant.status !== 'ACTIVE') throw new ValidationError({ sellerMerchantSlug: ['no active merchant with this slug in the tenant'] });
    if (!merchant.ownerUserId) throw new ValidationError({ sellerMerchantSlug: ['this merchant has no owner account: it cannot be paid as a seller'] });
    if (merchant.ownerUserId !== callerId) throw new ValidationError({ sellerMerchantSlug: ['you can name only a merchant you own'] });
    resolved = merchant.ownerUserId;
  }
  if (resolved !== undefined) {
    if (input.sellerId && input.sellerId !== resolved) {
      throw new ValidationError({ sellerId: [`does not match ${input.sellerIdentifier !== undefined ? 'sellerIdentifier' : 'sellerMerchantSlug'}`] });
    }
    return resolved;
  }
  if (input.sellerId) {
    const account = await accountInTenant(deps, tenantId, input.sellerId);
    if (!account) throw new ValidationError({ sellerId: ['no user with this id in the tenant'] });
  }
  return input.sellerId;
};
