import { z } from 'zod';
import { event } from '../define';
import { CountryCode, DecimalAmount, Id, IsoDate, Percent } from '../common';

/** A DecimalAmount as stroops (bigint): compares two amounts without a float. */
const stroops = (a: string): bigint | null => {
  const m = /^(\d{1,15})(?:\.(\d{1,7}))?$/.exec(a);
  return m ? BigInt(m[1]!) * 10_000_000n + BigInt((m[2] ?? '').padEnd(7, '0')) : null;
};

// Fees: a tenant's fee schedule (docs/fees.md), on the tenant's stream (`tenant-<slug>`). The resolver that applies
// it is domain/src/fees.

/**
 * One fee: `percent × base + fixed`, clamped to [min, cap] (no cap when null), never above the base it is taken
 * from, rounded down to the cent.
 */
export const FeeRule = z
  .object({
    percent: Percent,
    fixed: DecimalAmount,
    min: DecimalAmount,
    cap: DecimalAmount.nullable(),
  })
  .strict()
  .refine((r) => r.cap === null || (stroops(r.cap) ?? 0n) >= (stroops(r.min) ?? 0n), { message: 'the cap is not below the minimum', path: ['cap'] });
export type FeeRule = z.infer<typeof FeeRule>;

/** VAT rates on fees, by the payer's country (ISO 3166-1 alpha-2), else `default`. */
export const FeeVatTable = z
  .object({
    default: Percent,
    byCountry: z.record(CountryCode, Percent).refine((r) => Object.keys(r).length <= 60, { message: 'at most 60 countries' }),
  })
  .strict();
export type FeeVatTable = z.infer<typeof FeeVatTable>;

/** A tenant's whole fee schedule (docs/fees.md#the-schedule). */
export const FeeSchedule = z
  .object({
    /** The platform's fee on what a successful pool releases (taken from the seller's side). */
    payment: FeeRule,
    /** The fee a buyer pays on top of the goods when depositing into escrow. */
    escrowDeposit: FeeRule,
    /** The paid listing's fee, by visibility. */
    listing: z.object({ LISTED: DecimalAmount, FEATURED: DecimalAmount }).strict(),
    /** The one-time organiser activation fee. */
    organiserActivation: DecimalAmount,
    vat: FeeVatTable,
  })
  .strict();
export type FeeSchedule = z.infer<typeof FeeSchedule>;

/** An operator set the tenant's fee schedule (`pnpm cli tenant fees`): the whole schedule, replacing the previous one. */
export const TenantFeeScheduleSet = event('TenantFeeScheduleSet', 1, z.object({ tenantId: Id, schedule: FeeSchedule, setAt: IsoDate }).strict());

export const feeEvents = [TenantFeeScheduleSet] as const;
