import { z } from 'zod';
import type { QuoteSigner } from './quote-token';
import {
  ForbiddenError,
  NotFoundError,
  ValidationError,
  formatAmount,
  parseAmount,
  quoteReservation,
  resolveCommission,
} from '@cagnotte/domain';
import { FeeRule, FeeVatTable, Percent } from '@cagnotte/event-schemas';
import { LedgerAmount, defineRoute, type RouteDef } from '@cagnotte/infra';
import { loadAccount, poolStream } from '../shared/context';
import { loadState, type CommandRuntime } from '../shared/run-command';
import { poolAggregate } from '../pools/aggregate';
import type { TenantPolicy } from '../identity/tenant';
import { poolToReserveIn } from '../reservations/runtime';
import { feePartyOf } from './parties';

// Fees (docs/fees.md): the commission resolver and the escrow-deposit quote. White-label only: with the tenant's toggle
// off both answer 404 before anything else. Both decide nothing and record nothing: they read the streams and apply
// the pure resolver of domain/src/fees.

export interface FeeRouteDeps extends CommandRuntime {
  clock: () => Date;
  /** The tenant's fee schedule, and the platform's tax identity (who invoices the platform fee). */
  tenantPolicy: (tenantId: string) => Promise<TenantPolicy>;
  /** Signs the quote ids a reservation is later held to. */
  quotes: QuoteSigner;
}

const CommissionInput = z
  .object({
    poolId: z.string().uuid().optional().describe('One of your pools (organiser only; anyone else’s is a 404)'),
    draft: z
      .object({
        sellerId: z.string().uuid().optional().describe('The seller’s account (default: you, i.e. not brokered)'),
        organiserCommissionPercent: Percent.optional(),
        acceptCommissionMandate: z.boolean().optional(),
      })
      .strict()
      .optional()
      .describe('A pool not created yet, resolved as if you created it'),
    amount: LedgerAmount.describe('What is split, e.g. a reservation’s deposit'),
  })
  .strict()
  .refine((b) => !(b.poolId && b.draft), { message: 'give poolId or draft, not both', path: ['draft'] })
  .describe('CommissionQuery');

const Line = z.object({
  kind: z.enum(['SELLER_PAYOUT', 'ORGANISER_COMMISSION', 'VAT_ON_ORGANISER_COMMISSION', 'PLATFORM_FEE', 'VAT_ON_PLATFORM_FEE']),
  amount: z.string(),
  recipient: z.object({ role: z.enum(['SELLER', 'ORGANISER', 'PLATFORM']), id: z.string() }),
  rule: z.string().describe('The rule that produced the line'),
  vat: z.object({ category: z.string(), rate: z.string() }).optional().describe('VAT lines: the EN 16931 category and rate of the fee’s invoice'),
});
const CommissionResult = z
  .object({
    amount: z.string(),
    lines: z.array(Line).describe('SELLER_PAYOUT, ORGANISER_COMMISSION, VAT_ON_ORGANISER_COMMISSION, PLATFORM_FEE, VAT_ON_PLATFORM_FEE, summing exactly to amount'),
    commission: z.object({ applies: z.boolean(), rule: z.string() }),
    rules: z.object({ payment: FeeRule, organiserCommissionPercent: z.string().nullable(), commissionMandate: z.boolean(), vat: FeeVatTable }),
  })
  .describe('CommissionResolution');

const QuoteInput = z
  .object({
    lines: z
      .array(z.object({ unitId: z.string().min(1).max(64), quantity: z.number().int().min(1).max(1_000_000) }).strict())
      .max(200)
      .default([])
      .describe('GROUPS: the units to quote'),
    amount: LedgerAmount.optional().describe('FUNDING: the amount to pledge'),
  })
  .strict()
  .describe('DepositQuoteInput');

const QuoteResult = z
  .object({
    quoteId: z.string().describe('The quote, signed by the service: send it as `quoteId` when reserving (POST /api/pools/{id}/reservations) and the reservation is charged exactly these prices, or refused (409 quote_changed, quote_expired)'),
    poolId: z.string(),
    revision: z.string().describe('The pool stream revision the quote was made at'),
    lines: z.array(z.object({ unitId: z.string(), quantity: z.number(), unitPrice: z.string(), amount: z.string() })),
    goods: z.string(),
    depositFee: z.string(),
    total: z.string().describe('What the buyer pays into escrow'),
    validUntil: z.string(),
    rules: z.object({ depositFee: z.string(), prices: z.string(), validity: z.string() }),
  })
  .describe('DepositQuote');

const text = (m: bigint) => formatAmount(m);

export const makeFeeRoutes = (deps: FeeRouteDeps): RouteDef[] => {
  const accountIn = async (userId: string, tenantId: string) => {
    const a = await loadAccount(deps.store, userId);
    return a.status === 'registered' && a.tenantId === tenantId ? a : null;
  };

  const commission = defineRoute({
    method: 'post',
    path: '/api/fees/commission',
    operationId: 'quoteCommission',
    summary: 'Commission resolver: who gets what of an amount, with the rule behind each line',
    description: [
      'Bearer; white-label tenants only (404 when the toggle is off). For one of your pools (`poolId`; another organiser’s or another tenant’s pool is a 404) or a `draft` resolved as if you created it (403 `business_account_required` for a commission from a non-BUSINESS account).',
      'Lines: the seller’s payout, the organiser’s commission and its VAT (a BUSINESS organiser with the COMMISSION mandate on a brokered pool), the platform fee (the tenant’s payment rule) and its VAT. Fees are rounded down to the cent, VAT half-up to the cent, the seller takes every remainder: the lines sum exactly to `amount` (docs/fees.md).',
    ].join('\n\n'),
    tags: ['Fees'],
    auth: 'required',
    gate: 'user',
    body: CommissionInput,
    success: { status: 200, description: 'The lines', schema: CommissionResult },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const caller = await accountIn(auth.userId, auth.tenantId);
      if (!caller) throw new NotFoundError('account');
      let sellerId: string;
      let percent: string | null;
      let mandate: boolean;
      if (ctx.body.poolId) {
        const { pool } = await loadState(deps.store, poolStream(ctx.body.poolId), poolAggregate);
        if (pool.status === 'none' || pool.tenantId !== auth.tenantId || pool.organiserId !== auth.userId) throw new NotFoundError('pool');
        sellerId = pool.fields.sellerId ?? pool.organiserId;
        percent = pool.fields.organiserCommissionPercent ?? null;
        mandate = pool.commissionMandate;
      } else {
        const draft = ctx.body.draft ?? {};
        if (caller.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Organise capability required');
        if (draft.organiserCommissionPercent !== undefined && caller.accountType !== 'BUSINESS') {
          throw new ForbiddenError('business_account_required', 'organiserCommissionPercent is accepted only for BUSINESS accounts');
        }
        sellerId = draft.sellerId ?? auth.userId;
        percent = draft.organiserCommissionPercent ?? null;
        mandate = draft.acceptCommissionMandate ?? false;
      }
      const seller = sellerId === auth.userId ? caller : await accountIn(sellerId, auth.tenantId);
      if (!seller) throw new ValidationError({ [ctx.body.poolId ? 'poolId' : 'draft.sellerId']: ['the seller is not an account of this tenant'] });
      const { feeSchedule, platform } = await deps.tenantPolicy(auth.tenantId);
      const r = resolveCommission({
        amount: parseAmount(ctx.body.amount),
        schedule: feeSchedule,
        platform,
        seller: feePartyOf(seller),
        organiser: { ...feePartyOf(caller), accountType: caller.accountType },
        organiserCommissionPercent: percent,
        commissionMandate: mandate,
      });
      return {
        data: {
          amount: text(r.amount),
          lines: r.lines.map((l) => ({ ...l, amount: text(l.amount) })),
          commission: r.commission,
          rules: { payment: feeSchedule.payment, organiserCommissionPercent: percent, commissionMandate: mandate, vat: feeSchedule.vat },
        },
      };
    },
  });

  const quote = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/quote',
    summary: 'Escrow-deposit quote: what a reservation placed now would pay into escrow',
    description: [
      'Bearer; white-label tenants only (404 when the toggle is off). GROUPS: `lines` (units × the tier-aware unit price a reservation placed now is charged: the same pricing as POST /api/pools/{id}/reservations, with the same refusals); FUNDING: `amount`.',
      'Answers the lines, the goods, the escrow-deposit fee of the tenant’s schedule, the total, `validUntil` (the tenant’s reservation hold time from now, at most the pool’s deadline: a reservation placed by then at the same pool revision is charged exactly these prices and holds them until it expires) and a `quoteId` binding the figures to this pool and to you: reserve with it and the reservation pays exactly `total` (the goods at these unit prices plus this deposit fee) into escrow, the amount of the deposit you sign, or is refused (409 `quote_changed` when a price or the deposit fee moved, `quote_expired` after `validUntil`).',
    ].join('\n\n'),
    tags: ['Fees'],
    auth: 'required',
    gate: 'user',
    params: z.object({ id: z.string().uuid() }),
    body: QuoteInput,
    success: { status: 200, description: 'The quote', schema: QuoteResult },
    errors: [400, 401, 403, 404, 409],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const now = deps.clock();
      const state = await loadState(deps.store, poolStream(ctx.params.id), poolAggregate);
      const pool = poolToReserveIn(state, auth.tenantId, auth.userId);
      if (pool.status === 'none') throw new NotFoundError('pool');
      const policy = await deps.tenantPolicy(auth.tenantId);
      const { priced, quote: q } = quoteReservation(pool, { lines: ctx.body.lines, pledge: ctx.body.amount ?? null }, auth.userId, now.toISOString(), policy.feeSchedule.escrowDeposit);
      const hold = now.getTime() + policy.reservationTtlSeconds * 1000;
      const deadline = pool.fields.deadline ? Date.parse(pool.fields.deadline) : Infinity;
      const validUntil = new Date(Math.min(hold, deadline)).toISOString();
      const body = {
        poolId: pool.id,
        revision: state.revision.toString(),
        lines: q.lines.map((l) => ({ unitId: l.unitId, quantity: l.quantity, unitPrice: l.unitPrice, amount: text(l.amount) })),
        goods: text(q.goods),
        depositFee: text(q.depositFee),
        total: text(q.total),
        validUntil,
      };
      const quoteId = deps.quotes.sign({
        poolId: pool.id,
        buyerId: auth.userId,
        validUntil,
        amount: body.total,
        depositFee: body.depositFee,
        pledge: priced.pledge,
        lines: body.lines.map((l) => ({ unitId: l.unitId, quantity: l.quantity, unitPrice: l.unitPrice })),
      });
      return {
        data: {
          quoteId,
          ...body,
          rules: {
            depositFee: q.rule,
            prices: 'each unit at the tier reached with the units already held or paid plus yours, as placing the reservation now charges',
            validity: `the tenant's reservation hold time (${policy.reservationTtlSeconds} s) from now, at most the pool's deadline; the prices are those of pool revision ${body.revision}`,
          },
        },
      };
    },
  });

  return [commission, quote];
};
