import { z } from 'zod';
import { CountryCode, DecimalAmount, Id, IsoDate, MarketplaceVisibility, Percent, PoolConfig, PoolStatus, PoolType, StellarAccountId } from '@cagnotte/event-schemas';

/** A percentage sent as "12.5" or 12.5; kept as a decimal string. */
const PercentInput = z
  .union([z.string(), z.number().finite()])
  .transform((v) => String(v))
  .pipe(Percent);

const Title = z.string().trim().min(1).max(200);

export const PoolCreateInput = z
  .object({
    type: PoolType,
    title: Title,
    description: z.string().max(10_000).default(''),
    country: CountryCode.default('FR'),
    currency: z.literal('EUR').default('EUR'),
    marketplaceVisibility: MarketplaceVisibility.default('PRIVATE'),
    config: PoolConfig.default({}),
    sellerId: Id.nullable().default(null),
    payoutAccount: StellarAccountId.nullable().default(null),
    organiserCommissionPercent: PercentInput.nullable().default(null).describe('BUSINESS accounts only'),
    targetAmount: DecimalAmount.nullable().default(null).describe('FUNDING goal, decimal string'),
    deadline: IsoDate.nullable().default(null),
    acceptCommissionMandate: z.boolean().default(false).describe('Records the COMMISSION mandate on a brokered paid pool'),
  })
  .strict()
  .describe('PoolCreateInput');
export type PoolCreateInput = z.infer<typeof PoolCreateInput>;

const SellerResolution = {
  sellerIdentifier: z.string().trim().min(1).max(200).optional().describe('User id, email or phone of the seller in this tenant; resolved to sellerId'),
  sellerMerchantSlug: z.string().trim().min(1).max(64).optional().describe('Slug of the seller\'s merchant profile; resolved to sellerId'),
};

export const MerchantPoolCreateInput = PoolCreateInput.extend(SellerResolution).strict().describe('MerchantPoolCreateInput');
export type MerchantPoolCreateInput = z.infer<typeof MerchantPoolCreateInput>;

/** One schema for both PATCH endpoints. Absent fields are left as they are; PATCH never changes the status. */
export const PoolUpdateInput = z
  .object({
    title: Title.optional(),
    description: z.string().max(10_000).optional(),
    country: CountryCode.optional(),
    currency: z.literal('EUR').optional(),
    marketplaceVisibility: MarketplaceVisibility.optional().describe('Once published, only PRIVATE; LISTED/FEATURED go through the listing operation'),
    config: PoolConfig.optional(),
    sellerId: Id.nullable().optional(),
    payoutAccount: StellarAccountId.nullable().optional(),
    organiserCommissionPercent: PercentInput.nullable().optional(),
    targetAmount: DecimalAmount.nullable().optional(),
    deadline: IsoDate.nullable().optional(),
    status: PoolStatus.optional().describe('Accepted only with the current status (ignored); any other is a 400 `status_not_patchable`: publish with POST …/publish'),
    ...SellerResolution,
  })
  .strict()
  .describe('PoolUpdateInput');
export type PoolUpdateInput = z.infer<typeof PoolUpdateInput>;

export const PoolIdParams = z.object({ id: z.string().uuid() });

export const ArchiveResult = z.object({ id: z.string().uuid(), archivedAt: z.string().nullable() });
export const Refund = z.object({ amount: z.string(), source: z.string() }).nullable();
