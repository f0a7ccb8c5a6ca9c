import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, DEAL_HOLD_DAYS, ForbiddenError, IllegalStateError, ValidationError, actsAs, decideDeal, depositMismatch, type DealCommand, type ObservedDeposit } from '@cagnotte/domain';
import { DealReleaseRule } from '@cagnotte/event-schemas';
import { LedgerAmount, V1Currency, defineRoute, fromPrefixedId, ledgerCall, prefixedIdParam, registerV1ErrorCodes, type RouteDef } from '@cagnotte/infra';
import { DealSchema, dealView } from '@cagnotte/read-models';
import { loadAccount } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';
import { loadState } from '../shared/run-command';
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';
import { escrowKeyOf, reclaimAfterOf } from './ledger';
import { dealActorOf, dealAggregate, dealAnswer, dealIdOf, dealIn, dealMemoHash, dealStream, ledgerAccountOf, loadDealFor, modeOf, tenantOf, type DealCtx, type DealDeps } from './runtime';

// The deal's lifecycle up to its release (docs/v1/deals.md): create, fund (the deposit the buyer signs, then its
// verification on the ledger), deliver, accept, dispute, cancel. Release and refund: ./settlement-routes.ts.

const Params = z.object({ id: prefixedIdParam('deal') });
const AccountRef = z.string().regex(/^acct_[0-9a-f]{32}$/, 'an account id (acct_…)').describe('An account of the tenant: `acct_<32 hex digits>`');
const TxHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/)
  .transform((h) => h.toLowerCase());
const DEPOSIT_VALID_SECONDS = 3600;

const CreateBody = z
  .object({
    buyer: AccountRef,
    seller: AccountRef,
    broker: AccountRef.optional(),
    items: z.array(z.object({ description: z.string().min(1).max(500), quantity: z.number().int().min(1).max(1_000_000), unitAmount: LedgerAmount }).strict()).min(1).max(100),
    currency: V1Currency,
    split: z.array(z.object({ account: AccountRef, bps: z.number().int().min(1).max(10_000) }).strict()).min(1).max(20).optional().describe('Basis points summing to 10000; default: 100% to the seller'),
    releaseRule: DealReleaseRule.default('on_acceptance').describe('`on_delivery`, `on_acceptance` (default; silence past the inspection period accepts) or `{at}`'),
    inspectionDays: z.number().int().min(0).max(60).optional().describe('Default: the tenant’s (3)'),
    description: z.string().max(1000).optional(),
    metadata: z.record(z.string().max(40), z.string().max(500)).refine((m) => Object.keys(m).length <= 50, 'at most 50 keys').optional(),
  })
  .strict();

const SubmitBody = z
  .object({ txHash: TxHash.optional(), signedXdr: z.string().min(1).max(20_000).optional() })
  .strict()
  .refine((b) => b.txHash !== undefined || b.signedXdr !== undefined, { message: 'give txHash or signedXdr', path: ['txHash'] });

export const DealDepositSchema = z
  .object({
    object: z.literal('deal_deposit'),
    deal: DealSchema,
    escrowAccount: z.string(),
    networkPassphrase: z.string(),
    amount: z.string(),
    xdr: z.string().describe('Unsigned: the buyer signs it with their linked account’s key'),
    hash: z.string(),
    balanceId: z.string(),
    expiresAt: z.string(),
    reclaim: z.object({ xdr: z.string(), validAfter: z.string() }).describe('The buyer’s own reclaim, valid from reclaimAfter: keep it'),
  })
  .describe('DealDeposit');

/** An account of the tenant named by `acct_…`, or a 400 on that field. */
const partyOf = async (deps: DealDeps, tenantId: string, ref: string, field: string): Promise<string> => {
  const uuid = fromPrefixedId('acct', ref);
  const account = uuid ? await loadAccount(deps.store, uuid) : null;
  if (!account || account.status === 'none' || account.tenantId !== tenantId) throw new ValidationError({ [field]: ['no such account in this tenant'] }, 'Unknown account', 'account_not_found');
  return uuid!;
};

/** Every code a deal operation can answer beyond the kit's (docs/v1/deals.md, "Errors"). */
registerV1ErrorCodes({
  deal_not_found: 'No such deal for this caller: missing, another tenant’s, of the other mode, or one they take no part in',
  deal_exists: 'A deal with this id exists already',
  account_not_found: 'A party or split account names no account of the tenant',
  ledger_account_required: 'A party (or a split account) has no linked ledger account',
  ledger_account_not_found: 'The buyer’s linked ledger account is not on the ledger yet',
  buyer_only: 'Only the deal’s buyer (or its creator) may do this',
  seller_only: 'Only the deal’s seller (or its creator) may do this; the buyer may refund only once their dispute lapsed',
  party_only: 'Only a party of the deal (or its creator) may do this',
  deal_cancelled: 'The deal was cancelled',
  deal_settled: 'The deal is released or refunded already',
  deal_not_funded: 'The deal is not funded yet',
  deal_funded: 'A funded deal is refunded, not cancelled',
  deal_already_funded: 'The deal is funded by another deposit (the buyer reclaims this one from reclaimAfter)',
  deal_accepted: 'The buyer accepted the deal: it can no longer be disputed',
  escrow_not_open: 'Ask for the deposit first (POST /v1/deals/{id}/fund)',
  escrow_not_found: 'The deal’s escrow account is not on the ledger',
  escrow_has_strays: 'Money was paid straight into the escrow account: it must go back before the deposit settles',
  payment_mismatch: 'The transaction is not exactly this deal’s deposit',
  invalid_xdr: 'signedXdr is not a transaction envelope for this network',
  release_not_due: 'The release rule does not allow the release yet, or a dispute holds the funds',
  release_in_progress: 'A release is prepared for the seller’s signature: the deal can no longer be disputed',
  dispute_exists: 'The deal already had a dispute',
  inspection_period_over: 'The inspection period is over: the deal can no longer be disputed',
  settlement_not_found: 'No such settlement of this deal',
  not_in_settlement: 'A transaction is not the lock or the release of this settlement',
  payout_account_not_ready: 'A recipient does not exist on the ledger or does not trust the stablecoin',
  too_late_to_settle: 'Too close to reclaimAfter: the buyer reclaims the deposit alone',
  invalid_split: 'The split does not sum to 10000 basis points',
});

export const makeDealRoutes = (deps: DealDeps): RouteDef[] => {
  const { clock, escrow, ledger } = deps;
  const meta = (ctx: DealCtx, now: string) => ({ actor: dealActorOf(ctx), now });

  /** One command on an existing deal, answered with the deal. */
  const onDeal = async (ctx: DealCtx & { params: { id: string } }, command: (now: string) => DealCommand, status = 200) => {
    const dealId = dealIdOf(ctx.params.id);
    const tenantId = tenantOf(ctx);
    const livemode = modeOf(deps, ctx);
    const now = clock().toISOString();
    const { answer } = await executeCommand(deps, {
      stream: dealStream(dealId),
      aggregate: dealAggregate,
      decide: ({ deal }) => decideDeal(command(now), dealIn(deal, tenantId, livemode)),
      respond: dealAnswer(status),
      ...fromRequest(ctx, tenantId, now),
    });
    return answer;
  };

  const create = defineRoute({
    method: 'post',
    path: '/v1/deals',
    summary: 'Create a deal: escrow between a buyer and a seller (and a broker), outside any pool',
    description:
      'The parties are accounts of the tenant (`acct_…`). The amount is Σ quantity × unitAmount; the split shares it in basis points (summing to 10000, default 100% to the seller), the remainder of the rounding to the seller (docs/v1/deals.md). Answers 201 with the deal, `created`.',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    body: CreateBody,
    idempotent: true,
    success: { status: 201, description: 'The deal', schema: DealSchema },
    errors: [400, 401, 403, 404, 409],
    handler: async (ctx) => {
      const b = ctx.body;
      const tenantId = tenantOf(ctx);
      const [buyerId, sellerId, brokerId, split, policy] = await Promise.all([
        partyOf(deps, tenantId, b.buyer, 'buyer'),
        partyOf(deps, tenantId, b.seller, 'seller'),
        b.broker ? partyOf(deps, tenantId, b.broker, 'broker') : null,
        b.split ? Promise.all(b.split.map(async (l, i) => ({ accountId: await partyOf(deps, tenantId, l.account, `split.${i}.account`), bps: l.bps }))) : null,
        deps.facts.policy(tenantId),
      ]);
      const dealId = randomUUID();
      const now = clock().toISOString();
      const { answer } = await executeCommand(deps, {
        stream: dealStream(dealId),
        aggregate: dealAggregate,
        decide: ({ deal }) =>
          decideDeal(
            {
              type: 'CreateDeal',
              data: {
                dealId,
                tenantId,
                livemode: modeOf(deps, ctx),
                buyerId,
                sellerId,
                brokerId,
                description: b.description ?? null,
                metadata: b.metadata ?? {},
                items: b.items,
                split,
                releaseRule: b.releaseRule,
                inspectionDays: b.inspectionDays ?? policy.inspectionDays,
                disputeResponseDays: policy.disputeResponseDays,
              },
              metadata: meta(ctx, now),
            },
            deal,
          ),
        respond: dealAnswer(201),
        ...fromRequest(ctx, tenantId, now),
      });
      return answer;
    },
  });

  const fund = defineRoute({
    method: 'post',
    path: '/v1/deals/{id}/fund',
    summary: 'The deposit the buyer signs: opens the deal’s escrow account on the ledger first',
    description:
      'The buyer (or the tenant’s key). The first call opens the escrow account (the seller’s linked account and the platform cosign it, 2 of 2; docs/escrow.md). Answers the unsigned deposit: a claimable balance of exactly the amount, claimable by the escrow until `reclaimAfter` and by the buyer from then on, valid an hour (call again for a fresh one). Sign it, submit it, then POST …/fund/submit. 400 `ledger_account_required` when the buyer or the seller has no linked ledger account.',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    params: Params,
    idempotent: true,
    success: { status: 200, description: 'The deposit to sign', schema: DealDepositSchema },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const deal = await loadDealFor(deps, ctx, dealIdOf(ctx.params.id));
      if (!actsAs(deal, dealActorOf(ctx), 'buyer')) throw new ForbiddenError('buyer_only', 'Only the deal’s buyer may do this');
      if (deal.funding) throw new ConflictError('deal_already_funded', `The deal is ${deal.status}: it is funded already`);
      if (deal.status !== 'created') throw new IllegalStateError('deal_cancelled', 'The deal was cancelled');
      const [buyerAccount, sellerAccount] = await Promise.all([ledgerAccountOf(deps, deal.buyerId, 'buyer'), ledgerAccountOf(deps, deal.sellerId, 'seller')]);
      const now = clock();
      if (!deal.escrow) {
        const e = await ledgerCall(() => escrow.openEscrow({ poolId: escrowKeyOf(deal.id), organiserAccount: sellerAccount }));
        const data = { accountId: e.accountId, cosigner: sellerAccount, platformSigner: e.platformSigner, threshold: e.threshold, reclaimAfter: reclaimAfterOf(now, DEAL_HOLD_DAYS, deps.reclaimAfterDays), setupTxHash: e.setupTxHash };
        await executeCommand(deps, {
          stream: dealStream(deal.id),
          aggregate: dealAggregate,
          decide: ({ deal: d }) => decideDeal({ type: 'OpenDealEscrow', data, metadata: meta(ctx, now.toISOString()) }, dealIn(d, deal.tenantId, deal.livemode)),
          // The deposit answer below is built fresh each call: only the escrow's opening is a command.
          ...fromRequest({ ...ctx, idempotency: null }, deal.tenantId, now.toISOString()),
        });
      }
      const { deal: after, doc } = await loadState(deps.store, dealStream(deal.id), dealAggregate);
      const opened = after.status === 'none' ? null : after.escrow;
      if (!opened) throw new IllegalStateError('escrow_not_open', 'The escrow account could not be recorded: call again');
      const validUntil = new Date(Math.min(now.getTime() + DEPOSIT_VALID_SECONDS * 1000, Date.parse(opened.reclaimAfter) - 1000));
      const deposit = await ledgerCall(() => escrow.buildDeposit({ source: buyerAccount, escrowAccount: opened.accountId, amount: deal.amount, memoHash: dealMemoHash(deal.id), reclaimAfter: new Date(opened.reclaimAfter), validUntil }));
      const reclaim = await ledgerCall(() => escrow.buildReclaim({ buyer: buyerAccount, balanceId: deposit.balanceId, reclaimAfter: opened.reclaimAfter, afterSequence: deposit.sequence }));
      return {
        data: {
          object: 'deal_deposit' as const,
          deal: dealView(doc!),
          escrowAccount: opened.accountId,
          networkPassphrase: ledger.settings.networkPassphrase,
          amount: deal.amount,
          xdr: deposit.xdr,
          hash: deposit.hash,
          balanceId: deposit.balanceId,
          expiresAt: deposit.expiresAt,
          reclaim: { xdr: reclaim.xdr, validAfter: reclaim.validAfter },
        },
      };
    },
  });

  const fundSubmit = defineRoute({
    method: 'post',
    path: '/v1/deals/{id}/fund/submit',
    summary: 'The buyer’s deposit, verified on the ledger: the deal is funded',
    description:
      'The buyer (or the tenant’s key). Primary path: you submitted the signed deposit; send `txHash`. Fallback: send `signedXdr` and the service submits it, only if it is exactly this deal’s deposit. The service reads it back from the ledger and checks it (succeeded; one claimable balance from the buyer’s linked account, in the stablecoin, of exactly the amount, with the deal’s memo, claimable by the escrow before `reclaimAfter` and by the buyer from then on, by no one else); then the deal is `funded`. 202 `{pending: true}` while the ledger does not show it (call again). 400 `payment_mismatch` for anything else; 409 `deal_already_funded` for a second deposit (the buyer reclaims it from `reclaimAfter`).',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    params: Params,
    body: SubmitBody,
    idempotent: true,
    success: { status: 200, description: 'The funded deal (202 with `pending` while the ledger does not show the deposit)', schema: DealSchema.extend({ pending: z.boolean().optional() }) },
    errors: [400, 401, 403, 404, 409, 503],
    handler: async (ctx) => {
      const deal = await loadDealFor(deps, ctx, dealIdOf(ctx.params.id));
      if (!actsAs(deal, dealActorOf(ctx), 'buyer')) throw new ForbiddenError('buyer_only', 'Only the deal’s buyer may do this');
      if (!deal.escrow) throw new IllegalStateError('escrow_not_open', 'Ask for the deposit first (POST …/fund)');
      const buyerAccount = await ledgerAccountOf(deps, deal.buyerId, 'buyer');
      const memoHash = dealMemoHash(deal.id);
      let txHash = ctx.body.txHash;
      const via = ctx.body.signedXdr !== undefined ? ('signedXdr' as const) : ('txHash' as const);
      if (ctx.body.signedXdr !== undefined) {
        const { tx, hash } = decodeSignedXdr(ledger, ctx.body.signedXdr, txHash);
        txHash = hash;
        if (deal.funding?.txHash !== hash) {
          // Nothing is submitted on the buyer's behalf unless it is exactly this deal's deposit.
          const expected = { source: buyerAccount, escrowAccount: deal.escrow.accountId, assetCode: escrow.asset.code, assetIssuer: escrow.asset.issuer, amount: deal.amount, memoHash, reclaimAfter: deal.escrow.reclaimAfter };
          const mismatch = depositMismatch(expected, escrow.describeDeposit(tx, { txHash: hash, ledger: 0, successful: true, closedAt: null }));
          if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The deposit does not fund this deal: ${mismatch.message}`, 'payment_mismatch');
          if ((await submitClientSigned(ledger, tx, hash)) === 'unavailable') return { status: 202, data: { ...dealView((await loadState(deps.store, dealStream(deal.id), dealAggregate)).doc!), pending: true } };
        }
      }
      const observed: ObservedDeposit | null = await ledgerCall(() => escrow.observeDeposit(txHash!));
      if (!observed) return { status: 202, data: { ...dealView((await loadState(deps.store, dealStream(deal.id), dealAggregate)).doc!), pending: true } };
      return onDeal(ctx, (now) => ({ type: 'RecordFunding', data: { deposit: observed, via, asset: escrow.asset, memoHash, buyerAccount }, metadata: meta(ctx, now) }));
    },
  });

  const simple = <B extends z.ZodType>(o: { path: string; summary: string; description: string; body: B; command: (body: z.infer<B>, ctx: DealCtx, now: string) => DealCommand }) =>
    defineRoute({
      method: 'post',
      path: `/v1/deals/{id}/${o.path}`,
      summary: o.summary,
      description: o.description,
      tags: ['Deals'],
      auth: 'required',
      tenant: 'required',
      params: Params,
      body: o.body,
      idempotent: true,
      success: { status: 200, description: 'The deal', schema: DealSchema },
      errors: [400, 401, 403, 404, 409],
      handler: (ctx) => onDeal(ctx, (now) => o.command(ctx.body as z.infer<B>, ctx, now)),
    });

  const deliver = simple({
    path: 'deliver',
    summary: 'The seller delivered: the inspection period starts',
    description: 'The seller (or the tenant’s key), on a funded deal. `inspectionEndsAt` = now + inspectionDays. Under `on_delivery` the release is due at once.',
    body: z.object({ note: z.string().max(1000).optional() }).strict(),
    command: (b, ctx, now) => ({ type: 'MarkDealDelivered', data: { note: b.note ?? null }, metadata: meta(ctx, now) }),
  });
  const accept = simple({
    path: 'accept',
    summary: 'The buyer accepts: the release is due (under `on_acceptance`); an open dispute of theirs is withdrawn',
    description: 'The buyer (or the tenant’s key), on a funded deal.',
    body: z.object({}).strict(),
    command: (_b, ctx, now) => ({ type: 'AcceptDeal', data: {}, metadata: meta(ctx, now) }),
  });
  const dispute = simple({
    path: 'dispute',
    summary: 'The buyer disputes: the escrow holds until the dispute ends',
    description:
      'The buyer (or the tenant’s key), on a funded deal, before the inspection period ends and before a release is prepared. The seller refunds (POST …/refund) or the buyer withdraws it by accepting; unanswered past `respondBy`, it lapses to the buyer, who may then ask for the refund themselves (docs/escrow.md: the same rule as a pool’s disputes).',
    body: z.object({ reason: z.string().min(1).max(2000) }).strict(),
    command: (b, ctx, now) => ({ type: 'DisputeDeal', data: { disputeId: randomUUID(), reason: b.reason }, metadata: meta(ctx, now) }),
  });
  const cancel = simple({
    path: 'cancel',
    summary: 'Cancel a deal before it is funded',
    description: 'The buyer or the seller (or the tenant’s key). A funded deal is refunded instead (400 `deal_funded`).',
    body: z.object({ reason: z.string().max(500).optional() }).strict(),
    command: (b, ctx, now) => ({ type: 'CancelDeal', data: { reason: b.reason ?? null }, metadata: meta(ctx, now) }),
  });

  return [create, fund, fundSubmit, deliver, accept, dispute, cancel];
};
