import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { RESERVATION_TERMS } from '@cagnotte/event-schemas';
import { defineRoute, ledgerCall, type EscrowLedger, type RouteDef } from '@cagnotte/infra';
import { factsOfRow, isSettledBalance, type PoolReadModel, type ReservationReadModel } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// The reads of the checkout: the terms a buyer accepts, and the buyer's own reclaim rebuilt for their account now.

export interface CheckoutQueryDeps extends ConsistencyDeps {
  reservations: ReservationReadModel;
  pools: PoolReadModel;
  escrow: EscrowLedger;
}

const Reclaim = z
  .object({
    xdr: z.string().describe('Unsigned claim of your deposit (base64 XDR): sign it with your key and submit it from `validAfter`'),
    hash: z.string(),
    networkPassphrase: z.string(),
    balanceId: z.string(),
    validAfter: z.string().describe('The ledger refuses it before this time'),
    amount: z.string(),
  })
  .describe('Reclaim');

export const makeCheckoutQueryRoutes = (deps: CheckoutQueryDeps): RouteDef[] => {
  const { reservations, pools, escrow } = deps;

  const terms = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/terms',
    operationId: 'getPoolTerms',
    summary: 'The terms a buyer accepts when signing a reservation',
    description: 'Server-authoritative text with its version and sha256, for a published pool of the tenant; sign sends back the version and hash it accepted (400 `terms_outdated` otherwise).',
    tags: ['Reservation'],
    auth: 'optional',
    tenant: 'optional',
    params: z.object({ id: z.string().uuid() }),
    success: { status: 200, description: 'The current terms', schema: z.object({ version: z.string(), text: z.string(), hash: z.string() }).describe('ReservationTerms') },
    errors: [404],
    handler: async (ctx) => {
      const { id } = ctx.params as { id: string };
      const tenantId = ctx.tenant?.id ?? ctx.auth?.tenantId;
      await waitForMinPosition(deps, ctx, ['pools']);
      const [pool] = await pools.rowsOf([id]);
      if (!pool || pool.tenant_id !== tenantId || pool.status === 'DRAFT') throw new NotFoundError('pool');
      return { data: { version: RESERVATION_TERMS.version, text: RESERVATION_TERMS.text, hash: RESERVATION_TERMS.hash } };
    },
  });

  const reclaim = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/reservations/{reservationId}/reclaim',
    summary: 'Your reclaim transactions, rebuilt for your account now',
    description:
      'Bearer, the buyer only (anyone else: 404). One claim per deposit of the reservation still on the ledger (its payment and any deposit owed back, unless a settlement claimed it), valid from `reclaimAfter`: sign and submit it yourself; before that time the ledger refuses it. Never part of an event, a read model or anyone else’s answer. Send `X-Min-Position` to read your own write.',
    tags: ['Reservation'],
    auth: 'required',
    tenant: 'optional',
    params: z.object({ id: z.string().uuid(), reservationId: z.string().uuid() }),
    success: { status: 200, description: 'The reclaims', schema: z.object({ reclaims: z.array(Reclaim) }).describe('ReservationReclaims') },
    errors: [401, 404, 503],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, ['reservations']);
      const auth = ctx.auth!;
      const { id, reservationId } = ctx.params as { id: string; reservationId: string };
      const row = await reservations.forBuyer(ctx.tenant?.id ?? auth.tenantId, auth.userId, reservationId);
      if (!row || row.pool_id !== id) throw new NotFoundError('reservation');
      const r = factsOfRow(row);
      const source = r.signed?.source;
      if (!r.signed || !source) return { data: { reclaims: [] } };
      // A deposit a settlement claimed is no longer on the ledger to reclaim.
      const deposits = [...(r.payment ? [r.payment] : []), ...r.latePayments].filter((d) => !isSettledBalance(r, d.balanceId));
      const reclaims = [];
      for (const d of deposits) {
        const built = await ledgerCall(() => escrow.buildReclaim({ buyer: source, balanceId: d.balanceId, reclaimAfter: r.signed!.reclaimAfter }));
        reclaims.push({ xdr: built.xdr, hash: built.hash, networkPassphrase: escrow.networkPassphrase, balanceId: d.balanceId, validAfter: built.validAfter, amount: d.amount });
      }
      return { data: { reclaims } };
    },
  });

  return [terms, reclaim];
};
