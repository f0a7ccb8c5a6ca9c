import { ValidationError } from '@cagnotte/domain';
import { lookupOrUnavailable, type MerchantRow, type Services } from '@cagnotte/infra';

/** What a pool command may say about its seller: an id, or something the merchant path resolves to one. */
export interface SellerReference {
  sellerId?: string | null;
  sellerIdentifier?: string;
  sellerMerchantSlug?: string;
}

type Lookups = Pick<Services, 'accounts' | 'knex'>;

const accountInTenant = (services: Lookups, tenantId: string, identifier: string) =>
  lookupOrUnavailable(() => services.accounts.findInTenant(tenantId, identifier));

const activeMerchant = (services: Lookups, tenantId: string, slug: string) =>
  lookupOrUnavailable(
    async () => (await services.knex<MerchantRow>('rm_merchants').where({ tenant_id: tenantId, slug, status: 'ACTIVE' }).first()) ?? null,
  );

/**
 * Resolves and checks the seller a create or update names, inside the pool's tenant, for the caller:
 * - `sellerId` must be a user of the tenant;
 * - `sellerIdentifier` (id, email or phone) must find one;
 * - `sellerMerchantSlug` must be an ACTIVE merchant of the tenant that has an owner, and the caller must be that owner.
 * Each refusal is a 400 naming the field. A lookup the database cannot answer is a 503, never a 400.
 * Answers the seller id to record, `null` for none, or `undefined` when the input says nothing about the seller.
 */
export const resolveSeller = async (services: Lookups, tenantId: string, callerId: string, input: SellerReference): Promise<string | null | undefined> => {
  if (input.sellerIdentifier !== undefined && input.sellerMerchantSlug !== undefined) {
    throw new ValidationError({ sellerIdentifier: ['give sellerIdentifier or sellerMerchantSlug, not both'] });
  }
  let resolved: string | undefined;
  if (input.sellerIdentifier !== undefined) {
    const account = await accountInTenant(services, tenantId, input.sellerIdentifier);
    if (!account) throw new ValidationError({ sellerIdentifier: ['no account with this id, email or phone in the tenant'] });
    resolved = account.id;
  } else if (input.sellerMerchantSlug !== undefined) {
    const merchant = await activeMerchant(services, tenantId, input.sellerMerchantSlug);
    if (!merchant) throw new ValidationError({ sellerMerchantSlug: ['no active merchant with this slug in the tenant'] });
    if (!merchant.owner_user_id) throw new ValidationError({ sellerMerchantSlug: ['this merchant has no owner account: it cannot be paid as a seller'] });
    if (merchant.owner_user_id !== callerId) throw new ValidationError({ sellerMerchantSlug: ['you can name only a merchant you own'] });
    resolved = merchant.owner_user_id;
  }
  if (resolved !== undefined) {
    if (input.sellerId && input.sellerId !== resolved) {
      throw new ValidationError({ sellerId: [`does not match ${input.sellerIdentifier !== undefined ? 'sellerIdentifier' : 'sellerMerchantSlug'}`] });
    }
    return resolved;
  }
  if (input.sellerId) {
    const account = await accountInTenant(services, tenantId, input.sellerId);
    if (!account) throw new ValidationError({ sellerId: ['no user with this id in the tenant'] });
  }
  return input.sellerId;
};
