import { frozenFeeVat, vatIdOf, type Account, type FeeParty, type Pool } from '@cagnotte/domain';
import type { SettlementFees } from '@cagnotte/event-schemas';
import type { TenantPolicy } from '../identity/tenant';

/** A party to a fee as its account stream says: taxed where its business persona is (else its account country), with its VAT id. */
export const feePartyOf = (a: Extract<Account, { status: 'registered' }>): FeeParty => ({ id: a.userId, country: a.business?.taxCountry ?? a.country, vatId: vatIdOf(a.business) });

/**
 * The VAT rates a closing freezes (docs/fees.md#vat): on the platform fee (the platform invoices the seller) and, on
 * a brokered pool, on the commission (the organiser invoices the seller). Null when the seller or organiser account
 * cannot be read (then no VAT is withheld, as before schedules).
 */
export const closingFeeVat = async (accountOf: (userId: string) => Promise<Account>, policy: Pick<TenantPolicy, 'feeSchedule' | 'platform'>, pool: Pool): Promise<SettlementFees['vat']> => {
  if (pool.status === 'none') return null;
  const sellerId = pool.fields.sellerId ?? pool.organiserId;
  const [organiser, seller] = await Promise.all([accountOf(pool.organiserId), sellerId === pool.organiserId ? null : accountOf(sellerId)]).then(([o, s]) => [o, s ?? o] as const);
  if (organiser.status === 'none' || seller.status === 'none') return null;
  return frozenFeeVat({ schedule: policy.feeSchedule, platform: policy.platform, seller: feePartyOf(seller), organiser: feePartyOf(organiser) });
};
