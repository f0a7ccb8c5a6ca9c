import { z } from 'zod';
import { ForbiddenError, ValidationError, actsAs, decideDeal, formatAmount, type ExistingDeal, type PreparedDealSettlement } from '@cagnotte/domain';
import { defineRoute, prefixedIdParam, type RouteDef, type SettlementRound } from '@cagnotte/infra';
import { loadState } from '../shared/run-command';
import { DealSchema } from '@cagnotte/read-models';
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';
import { executeCommand, fromRequest, type CommandCtx } from '../shared/execute-command';
import { lockedSettlement, planDealSettlement, rebuiltDealPlan, settledOnLedger, hexOf } from './ledger';
import { dealActorOf, dealAggregate, dealAnswer, dealIdOf, dealIn, dealStream, loadDealFor, modeOf, tenantOf, type DealDeps } from './runtime';

// The release and the refund of a deal's escrow (docs/v1/deals.md, "Signers"): the service plans one final round of
// the pools' settlement (lock, release, keyless recovery) and signs only the platform's half of the lock; the seller
// cosigns the lock and the release. The platform signs a RELEASE lock only when the release rule says it is due.

type Transaction = SettlementRound['lock'];
const Params = z.object({ id: prefixedIdParam('deal') });
const Tx = z.object({ xdr: z.string(), hash: z.string() });

export const DealSettlementSchema = z
  .object({
    object: z.literal('deal_settlement'),
    id: z.string().uuid(),
    kind: z.enum(['RELEASE', 'REFUND']),
    deal: DealSchema,
    escrowAccount: z.string(),
    networkPassphrase: z.string(),
    releaseUntil: z.string().describe('The lock and the release are valid until then'),
    lock: Tx.describe('Signed by the platform already: the seller adds their signature'),
    release: Tx.describe('Pre-authorised by the lock: the seller adds their signature'),
    recovery: Tx.extend({ validFrom: z.string() }).describe('Keyless: anyone may submit it from `validFrom` if the release never came; it pays everything back to the buyer'),
    payouts: z.array(z.object({ destination: z.string(), amount: z.string() })).describe('What the release pays, per destination'),
    toSign: z.array(z.string()).describe('The hashes the seller signs, in the order to submit: the lock, then the release'),
  })
  .describe('DealSettlement');

const SubmitBody = z
  .object({
    settlementId: z.string().uuid(),
    signedXdrs: z.array(z.string().min(1).max(60_000)).max(2).optional(),
    txHashes: z.array(z.string().regex(/^[0-9a-fA-F]{64}$/)).max(2).optional(),
  })
  .strict()
  .refine((b) => (b.signedXdrs?.length ?? 0) + (b.txHashes?.length ?? 0) > 0, { message: 'give signedXdrs or txHashes', path: ['signedXdrs'] });

export const makeDealSettlementRoutes = (deps: DealDeps): RouteDef[] => {
  const { clock, escrow, ledger } = deps;

  const answerOf = (deal: ReturnType<typeof dealAnswer>, s: PreparedDealSettlement, round: SettlementRound) => (o: Parameters<ReturnType<typeof dealAnswer>>[0]) => {
    const base = deal(o);
    const payments = (list: SettlementRound['payouts']) => list.map((p) => ({ destination: p.destination, amount: formatAmount(p.amount) }));
    return {
      status: base.status,
      data: {
        object: 'deal_settlement' as const,
        id: s.settlementId,
        kind: s.kind,
        deal: base.data,
        escrowAccount: s.escrowAccount,
        networkPassphrase: ledger.settings.networkPassphrase,
        releaseUntil: s.releaseUntil,
        lock: { xdr: escrow.platformSign(round.lock).toXDR(), hash: s.lockHash },
        release: { xdr: round.release.toXDR(), hash: s.releaseHash },
        recovery: { xdr: round.recovery.toXDR(), hash: s.recoveryHash, validFrom: s.recoveryFrom },
        payouts: payments(round.payouts),
        toSign: [s.lockHash, s.releaseHash],
      },
    };
  };

  /** What the ledger already did is recorded first (whoever submitted it), so the answer is the truth. */
  const sync = async (ctx: CommandCtx, deal: ExistingDeal) => {
    const landed = await settledOnLedger(deps, deal);
    if (!landed) return;
    const now = clock().toISOString();
    await executeCommand(deps, {
      stream: dealStream(deal.id),
      aggregate: dealAggregate,
      decide: ({ deal: d }) => decideDeal({ type: 'RecordDealSettled', data: landed, metadata: { actor: null, now } }, dealIn(d, deal.tenantId, deal.livemode)),
      ...fromRequest({ ...ctx, idempotency: null }, deal.tenantId, now),
    });
  };

  const prepare = (kind: 'RELEASE' | 'REFUND') =>
    defineRoute({
      method: 'post',
      path: `/v1/deals/{id}/${kind === 'RELEASE' ? 'release' : 'refund'}`,
      summary: kind === 'RELEASE' ? 'Prepare the release: the split, for the seller to cosign' : 'Prepare the refund: everything back to the buyer, for the seller to cosign',
      description:
        kind === 'RELEASE'
          ? 'The seller (or the tenant’s key), once the release rule says the release is due and no dispute holds the funds (400 `release_not_due`). Answers the settlement: the lock (the platform signed its half) and the release, which the seller signs and submits (POST …/release/submit), and the keyless recovery that pays the buyer back if the release never comes. The platform alone can move nothing. While a settlement is locked on the ledger it is answered unchanged.'
          : 'The seller (or the tenant’s key) at any time before the deal is settled; the buyer once their dispute lapsed. Answers the settlement to cosign, as the release does: its release pays the whole deposit back to the account it came from. Without the seller’s signature the buyer reclaims the deposit alone from `reclaimAfter`.',
      tags: ['Deals'],
      auth: 'required',
      tenant: 'required',
      params: Params,
      body: z.object({}).strict().optional(),
      idempotent: true,
      success: { status: 201, description: 'The settlement to cosign (200 when answering the one the escrow is locked on)', schema: DealSettlementSchema },
      errors: [400, 401, 403, 404, 409, 503],
      handler: async (ctx) => {
        const dealId = dealIdOf(ctx.params.id);
        let deal = await loadDealFor(deps, ctx, dealId);
        await sync(ctx, deal);
        deal = await loadDealFor(deps, ctx, dealId);
        const locked = deal.settled ? null : await lockedSettlement(deps, deal);
        if (locked) return answerOf(dealAnswer(200), locked, rebuiltDealPlan(deps, locked))({ state: await stateOf(deps, dealId), events: [], position: null, revision: -1n });
        const now = clock();
        const { data, round } = await planDealSettlement(deps, deal, kind, now);
        const { answer } = await executeCommand(deps, {
          stream: dealStream(dealId),
          aggregate: dealAggregate,
          decide: ({ deal: d }) => decideDeal({ type: 'PrepareDealSettlement', data, metadata: { actor: dealActorOf(ctx), now: now.toISOString() } }, dealIn(d, tenantOf(ctx), modeOf(deps, ctx))),
          respond: answerOf(dealAnswer(201), { ...data, preparedAt: now.toISOString() }, round),
          ...fromRequest(ctx, tenantOf(ctx), now.toISOString()),
        });
        return answer;
      },
    });

  const submit = (kind: 'RELEASE' | 'REFUND') =>
    defineRoute({
      method: 'post',
      path: `/v1/deals/{id}/${kind === 'RELEASE' ? 'release' : 'refund'}/submit`,
      summary: `Submit the cosigned ${kind === 'RELEASE' ? 'release' : 'refund'}: verified on the ledger, recorded`,
      description:
        'The seller’s cosigned lock and release (`signedXdrs`, in that order; the service submits them, a lock lacking the platform’s signature gets it), or the `txHashes` of what they submitted themselves. Each must be exactly a transaction of the settlement (400 `not_in_settlement`). The service reads the release (else the recovery) back from the ledger and records `released` or `refunded`. The ledger refuses a release without the seller’s signature (400 `ledger_rejected`, `tx_bad_auth`).',
      tags: ['Deals'],
      auth: 'required',
      tenant: 'required',
      params: Params,
      body: SubmitBody,
      idempotent: true,
      success: { status: 200, description: 'The deal, released or refunded (`pending` while the ledger does not show it)', schema: DealSchema.extend({ pending: z.boolean().optional() }) },
      errors: [400, 401, 403, 404, 503],
      handler: async (ctx) => {
        const dealId = dealIdOf(ctx.params.id);
        const deal = await loadDealFor(deps, ctx, dealId);
        if (!actsAs(deal, dealActorOf(ctx), 'seller') && !actsAs(deal, dealActorOf(ctx), 'buyer')) throw new ForbiddenError('party_only', 'Only a party of the deal may do this');
        const s = deal.settlements.find((x) => x.settlementId === ctx.body.settlementId);
        if (!s) throw new ValidationError({ settlementId: ['not a settlement of this deal'] }, 'Unknown settlement', 'settlement_not_found');
        const round = rebuiltDealPlan(deps, s);
        const planned = new Map<string, 'lock' | 'release'>([
          [s.lockHash, 'lock'],
          [s.releaseHash, 'release'],
        ]);
        const given = new Map<string, Transaction>();
        for (const [i, signedXdr] of (ctx.body.signedXdrs ?? []).entries()) {
          const { tx, hash } = decodeSignedXdr(ledger, signedXdr);
          const which = planned.get(hash);
          if (!which) throw new ValidationError({ [`signedXdrs.${i}`]: ['not the lock or the release of this settlement'] }, 'A transaction is not part of the settlement', 'not_in_settlement');
          given.set(hash, which === 'lock' ? withPlatform(tx) : tx);
        }
        for (const [i, h] of (ctx.body.txHashes ?? []).entries()) {
          if (!planned.has(h.toLowerCase())) throw new ValidationError({ [`txHashes.${i}`]: ['not the lock or the release of this settlement'] }, 'A transaction is not part of the settlement', 'not_in_settlement');
        }
        let pending = false;
        let refusal: unknown = null;
        try {
          for (const tx of [round.lock, round.release]) {
            const signed = given.get(hexOf(tx));
            if (signed && (await submitClientSigned(ledger, signed, hexOf(tx))) === 'unavailable') pending = true;
          }
        } catch (e) {
          refusal = e;
        }
        await sync(ctx, deal);
        if (refusal) throw refusal;
        const state = await stateOf(deps, dealId);
        const settled = state.deal.status !== 'none' && state.deal.settled !== null;
        return { data: { ...(dealAnswer(200)({ state, events: [], position: null, revision: state.revision }).data as Record<string, unknown>), ...(pending || !settled ? { pending: true } : {}) } };
      },
    });

  /** The lock as the seller signed it, with the platform's signature (added if they signed the bare one; ed25519 is deterministic). */
  const withPlatform = (tx: Transaction): Transaction => {
    const platformSignature = escrow.platformSign(tx).signatures.at(-1)!.toXDR('base64');
    return tx.signatures.some((sig) => sig.toXDR('base64') === platformSignature) ? tx : escrow.platformSign(tx);
  };

  return [prepare('RELEASE'), submit('RELEASE'), prepare('REFUND'), submit('REFUND')];
};

const stateOf = (deps: DealDeps, dealId: string) => loadState(deps.store, dealStream(dealId), dealAggregate);
