import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, UnavailableError, ValidationError, decideListing, delistRefundable, initialPool, openListingFor, paymentMismatch, type ObservedPayment } from '@cagnotte/domain';
import { ListingTier } from '@cagnotte/event-schemas';
import { defineRoute, ledgerCall, type EscrowLedger, type LedgerGateway, type RouteDef, type Services } from '@cagnotte/infra';
import { GroupBuy } from '@cagnotte/read-models';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { executeCommand, fromRequest } from '../shared/execute-command';
import { poolAggregate, poolInTenant } from './aggregate';
import { poolAnswer } from './answers';
import type { PoolCommandDeps } from './deps';
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';

// The paid listing: the organiser pays the tenant's fee for LISTED or FEATURED on the ledger, client-signed.

export const LISTING_REFUND_QUEUE = 'listing-refund';
export const listingMemoHash = (listingId: string) => createHash('sha256').update(`cagnotte:listing:${listingId}`).digest('hex');
export const listingRefundMemoHash = (listingId: string) => createHash('sha256').update(`cagnotte:listing-refund:${listingId}`).digest('hex');

export interface ListingDeps extends PoolCommandDeps {
  ledger: LedgerGateway;
}

const PoolIdParams = z.object({ id: z.string().uuid() });
const TxHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-character hex transaction hash')
  .transform((h) => h.toLowerCase());

const ListingPayment = z
  .object({
    listingId: z.string().uuid(),
    tier: ListingTier,
    amount: z.string(),
    status: z.literal('AWAITING_PAYMENT'),
    xdr: z.string().describe('Unsigned fee payment (base64 XDR) from your linked account to the platform: sign and submit it'),
    hash: z.string(),
    expiresAt: z.string(),
    networkPassphrase: z.string(),
  })
  .describe('ListingPayment');

const ListResult = z.object({ listed: z.boolean(), pool: GroupBuy.optional(), listing: ListingPayment.optional() }).describe('ListResult');
const SubmitResult = z
  .object({ listed: z.boolean(), pending: z.boolean().optional(), idempotent: z.boolean().optional(), reason: z.string().optional(), txHash: z.string().optional(), pool: GroupBuy.optional() })
  .describe('ListSubmitResult');

export const makeListingRoutes = (deps: ListingDeps): RouteDef[] => {
  const { ledger } = deps;

  const list = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/list',
    operationId: 'listPoolOnMarketplace',
    summary: 'List a published pool on the marketplace (LISTED or FEATURED), paying the tenant’s fee',
    description: [
      'Owner organiser. The pool must be OPEN (400 `pool_not_open`); a tier at or below the current one is 400 `already_listed` (LISTED → FEATURED is an upgrade with its own fee). The fee is the tenant’s schedule for the tier (operator: `pnpm cli tenant settings`).',
      'A fee of 0 lists at once: `{listed: true, pool}`. Otherwise the answer is `{listed: false, listing}`: an unsigned payment of exactly the fee from your linked ledger account to the platform account, bound to the listing by its MEMO_HASH. Sign and submit it, then POST …/list/submit with `txHash` (or `signedXdr`). Asking again for the same tier answers the same open listing.',
    ].join('\n\n'),
    tags: ['Pool CRUD'],
    auth: 'required',
    params: PoolIdParams,
    body: z.object({ tier: ListingTier }).strict(),
    idempotent: true,
    success: { status: 200, description: 'Listed, or the fee payment to sign', schema: ListResult },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const poolId = ctx.params.id;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const { actor, account, policy } = await deps.facts.of(auth, tenantId);
      const fee = policy.listingFees[ctx.body.tier];
      const source = account.ledgerAccount;
      const now = deps.clock().toISOString();
      const listingId = randomUUID();
      const terms = {
        listingId,
        tier: ctx.body.tier,
        amount: fee,
        source,
        destination: ledger.settings.platformAccount,
        assetCode: ledger.settings.assetCode,
        assetIssuer: ledger.settings.assetIssuer,
        memoHash: listingMemoHash(listingId),
      };
      const { answer } = await executeCommand(deps, {
        stream: poolStream(poolId),
        aggregate: poolAggregate,
        decide: ({ pool }) => decideListing({ type: 'PrepareListing', data: terms, metadata: { actor, now } }, poolInTenant(pool, tenantId)),
        respond: (o) => {
          const listed = o.events.some((e) => e.type === 'PoolListed');
          return { status: 200, data: listed ? { listed: true, pool: poolAnswer(auth)(o).data } : { listed: false, openListing: o.state.pool.status === 'none' ? null : openListingFor(o.state.pool, terms.tier, fee) } };
        },
        ...fromRequest(ctx, tenantId, now),
      });
      const data = answer.data as { listed: boolean; pool?: unknown; openListing?: { listingId: string; tier: 'LISTED' | 'FEATURED'; amount: string; source: string; memoHash: string } | null };
      if (data.listed || !data.openListing) return { data: { listed: data.listed, ...(data.pool ? { pool: data.pool as z.infer<typeof GroupBuy> } : {}) }, headers: answer.headers };
      const open = data.openListing;
      const built = await ledgerCall(() => ledger.buildFeePayment(open.source, open.amount, open.memoHash));
      return {
        data: { listed: false, listing: { listingId: open.listingId, tier: open.tier, amount: open.amount, status: 'AWAITING_PAYMENT' as const, xdr: built.xdr, hash: built.hash, expiresAt: built.expiresAt, networkPassphrase: ledger.settings.networkPassphrase } },
        headers: answer.headers,
      };
    },
  });

  const submit = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/list/submit',
    operationId: 'submitPoolListing',
    summary: 'Finish a paid listing: the fee payment is verified on the ledger',
    description:
      'Owner organiser. Send `txHash` (you submitted the payment) or `signedXdr` (the service submits it if it is exactly the listing’s payment). The payment must have succeeded, hold one payment from your linked account to the platform account, in the stablecoin (code and issuer), of exactly the fee, with the listing’s memo. Then the pool is LISTED or FEATURED. `{pending: true}` while the ledger does not show it; `{idempotent: true}` on a repeat; a forged payment is 400 `payment_mismatch` and lists nothing.',
    tags: ['Pool CRUD'],
    auth: 'required',
    params: PoolIdParams,
    body: z
      .object({ listingId: z.string().uuid(), txHash: TxHash.optional(), signedXdr: z.string().min(1).max(20_000).optional() })
      .strict()
      .refine((b) => b.txHash !== undefined || b.signedXdr !== undefined, { message: 'give txHash or signedXdr', path: ['txHash'] }),
    idempotent: true,
    success: { status: 200, description: 'Listed, pending or idempotent', schema: SubmitResult },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const poolId = ctx.params.id;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      // The ledger is asked before the command (what was paid, and a submission): the pool is read once for it, and the
      // decider checks the listing again on the state it decides on.
      const [actor, { pool: loaded }] = await Promise.all([deps.facts.actor(auth), loadState(deps.store, poolStream(poolId), poolAggregate)]);
      const pool = loaded.status !== 'none' && loaded.tenantId === tenantId && loaded.organiserId === auth.userId ? loaded : initialPool();
      const listing = pool.status === 'none' ? undefined : pool.listing.prepared.find((p) => p.listingId === ctx.body.listingId);
      if (!listing) throw new NotFoundError('listing');
      let txHash = ctx.body.txHash;
      if (ctx.body.signedXdr !== undefined) {
        const { tx, hash } = decodeSignedXdr(ledger, ctx.body.signedXdr, txHash);
        txHash = hash;
        if (listing.status !== 'PAID') {
          const mismatch = paymentMismatch({ ...listing, ledgerAccount: listing.source }, ledger.describePayment(tx, { txHash: hash, ledger: 0, successful: true }));
          if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not pay this listing: ${mismatch.message}`, 'payment_mismatch');
          if ((await submitClientSigned(ledger, tx, hash)) === 'unavailable') return { data: { listed: false, pending: true, reason: 'ledger_unavailable', txHash: hash } };
        }
      }
      const observed: ObservedPayment | null = await ledgerCall(() => ledger.observePayment(txHash!));
      if (!observed) return { data: { listed: false, pending: true, reason: 'not_on_ledger_yet', txHash: txHash! } };
      const now = deps.clock().toISOString();
      const { answer } = await executeCommand(deps, {
        stream: poolStream(poolId),
        aggregate: poolAggregate,
        decide: ({ pool: p }) => decideListing({ type: 'SettleListing', data: { listingId: listing.listingId, payment: observed }, metadata: { actor, now } }, poolInTenant(p, tenantId)),
        respond: (o) => ({ status: 200, data: { listed: true, ...(o.events.length === 0 ? { idempotent: true } : {}), txHash: observed.txHash, pool: poolAnswer(auth)(o).data } }),
        ...fromRequest(ctx, tenantId, now),
      });
      return answer;
    },
  });

  return [list, submit];
};

/** Before a PATCH that delists a refundable pool commits, its refund job is queued (a crash after the commit loses nothing). */
export const queueDelistRefund = async (deps: Pick<PoolCommandDeps, 'store' | 'jobs'>, poolId: string, windowHours: number, now: Date): Promise<void> => {
  const { pool } = await loadState(deps.store, poolStream(poolId), poolAggregate);
  if (pool.status === 'none' || !pool.listing.listingId || !delistRefundable(pool, now.toISOString(), windowHours)) return;
  await deps.jobs.enqueue(LISTING_REFUND_QUEUE, `listing-refund:${pool.listing.listingId}`, { poolId, listingId: pool.listing.listingId }, { delayMs: 2_000 }).catch((e: unknown) => {
    // No delist without its refund job: the PATCH is refused (503) and the client retries.
    throw new UnavailableError('jobs_unavailable', `The job queue did not answer (${(e as Error).message}); retry shortly`);
  });
};

/**
 * The refund job: pays the owed delist refund back from the platform (the memo makes a second payment impossible),
 * then records it. Until the delist that owes it is on the stream, it fails and is retried.
 */
export const startListingRefunds = (services: Services, escrow: EscrowLedger): (() => Promise<void>) => {
  const worker = services.jobs.startWorker<{ poolId: string; listingId: string }>(
    LISTING_REFUND_QUEUE,
    async ({ poolId, listingId }) => {
      const { pool } = await loadState(services.store, poolStream(poolId), poolAggregate);
      if (pool.status === 'none' || pool.listing.refunded.includes(listingId)) return;
      const owed = pool.listing.owed;
      if (!owed || owed.listingId !== listingId) throw new Error(`no delist refund owed for listing ${listingId} (yet)`);
      const paid = await escrow.payFromPlatform({ destination: owed.destination, amount: owed.amount, memoHash: listingRefundMemoHash(listingId) });
      const now = services.clock().toISOString();
      await executeCommand(services, {
        stream: poolStream(poolId),
        aggregate: poolAggregate,
        decide: ({ pool: p }) => decideListing({ type: 'RecordListingRefund', data: { listingId, amount: owed.amount, destination: owed.destination, txHash: paid.hash }, metadata: { now } }, p),
        metadata: { tenantId: pool.tenantId, actor: { kind: 'system', id: 'listing-refund' }, correlationId: randomUUID(), causationId: null, occurredAt: now },
      });
    },
    { concurrency: 2 },
  );
  return () => worker.close();
};

