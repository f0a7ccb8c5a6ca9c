import { z } from 'zod';
import { ValidationError, decideReservation } from '@cagnotte/domain';
import { currentReservationTerms } from '@cagnotte/event-schemas';
import { LedgerAmount, defineRoute, type RouteDef } from '@cagnotte/infra';
import { ReservationSchema } from '@cagnotte/read-models';
import { payExample, pendingReservationExample, reserveExample, signExample } from './examples';
import { poolStream } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';
import { poolAggregate, poolInTenant } from '../pools/aggregate';
import { answerWith } from '../pools/answers';
import { buyerMeta, reservationOf, tenantOf, type ReservationDeps } from './runtime';
import { payReservation, placeReservation, signReservation } from './commands';

// The buyer's checkout: reserve, sign (terms + the deposit to sign), pay (verified on the ledger), cancel. The terms and
// the buyer's reclaim are reads: query-api/src/reservations/checkout.ts.

const PoolParams = z.object({ id: z.string().uuid() });
/** The reclaim as the sign answer hands it out (GET …/reclaim on the query side rebuilds it later). */
const ReservationParams = z.object({ id: z.string().uuid(), reservationId: z.string().uuid() });
const TxHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-character hex transaction hash')
  .transform((h) => h.toLowerCase());

const ReserveInput = z
  .object({
    lines: z
      .array(z.object({ unitId: z.string().min(1).max(64), quantity: z.number().int().min(1).max(1_000_000) }).strict())
      .max(200)
      .default([])
      .describe('GROUPS: the units to hold'),
    pledge: LedgerAmount.optional().describe('FUNDING: the amount pledged, decimal string'),
    relaisId: z.string().min(1).max(64).nullable().optional().describe('The pick-up point (required when the pool has any)'),
    quoteId: z
      .string()
      .min(1)
      .max(8192)
      .optional()
      .describe('A deposit quote of yours for this pool (POST /api/pools/{id}/quote): the reservation is charged exactly its prices, or refused (409 quote_changed, quote_expired; 400 quote_mismatch for other lines)'),
  })
  .strict()
  .describe('ReserveInput');

const XdrToSign = z.object({
  xdr: z.string().describe('Unsigned transaction envelope (base64 XDR): sign it with your key and submit it'),
  hash: z.string(),
  networkPassphrase: z.string(),
});
const Reclaim = XdrToSign.extend({
  balanceId: z.string(),
  validAfter: z.string().describe('The ledger refuses it before this time'),
}).describe('Your reclaim transaction: shown to you only, never part of an event or a read model');

const SignResult = z
  .object({
    reservation: ReservationSchema,
    payment: XdrToSign.extend({ expiresAt: z.string(), balanceId: z.string(), amount: z.string(), escrowAccount: z.string() }).describe('The deposit to sign'),
    reclaim: Reclaim,
  })
  .describe('ReservationSignResult');

const PayResult = z
  .object({
    paid: z.boolean(),
    pending: z.boolean().optional(),
    idempotent: z.boolean().optional(),
    latePayment: z.boolean().optional().describe('The deposit came when the reservation no longer held: it is owed back (see `reclaim`)'),
    reason: z.string().optional(),
    txHash: z.string().optional(),
    reservation: ReservationSchema.optional(),
  })
  .describe('ReservationPayResult');

export const makeReservationRoutes = (deps: ReservationDeps): RouteDef[] => {
  const { clock, ledger } = deps;
  const passphrase = ledger.settings.networkPassphrase;

  const reserve = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/reservations',
    summary: 'Reserve: hold units (GROUPS) or pledge an amount (FUNDING)',
    description: [
      'Bearer. Send an `Idempotency-Key`: a retry answers the first result. The reservation is PENDING until `expiresAt` (the tenant’s reservation TTL), then expires (lazily on read, and by a delayed job scheduled from the ReservationPlaced event) and frees its units.',
      'No oversell: held and paid units never exceed a unit’s `quantity`; a refused reservation is a 409 `insufficient_stock` whose `errors` say what is left. Per-buyer `minPerBuyer`/`maxPerBuyer` count your holding reservations (400 `per_buyer_limit`). With price `tiers`, the unit price is the tier reached with your units included.',
      'The pool must be OPEN, not archived, before its deadline (400 `pool_not_open`, `pool_deadline_passed`); an organiser does not reserve in their own pool (403). A pool with pick-up points needs `relaisId`. A pool you may not read (GET /api/pools/{id} answers 404: another organiser’s DRAFT, an archived pool, a PRIVATE FUNDING pool) is a 404 `pool_not_found`, as an id that does not exist.',
    ].join('\n\n'),
    tags: ['Reservation'],
    auth: 'required',
    params: PoolParams,
    body: ReserveInput,
    example: reserveExample,
    idempotent: true,
    success: { status: 201, description: 'The PENDING reservation', schema: ReservationSchema, example: pendingReservationExample },
    errors: [400, 401, 403, 404, 409, 503],
    handler: (ctx) => placeReservation(deps, ctx, ctx.params.id, ctx.body, ctx.auth!, (o, reservationId) => answerWith(201, (x) => reservationOf(x.state, reservationId, clock()))(o)),
  });

  const sign = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/reservations/{reservationId}/sign',
    summary: 'Sign: accept the terms and get the deposit to sign, and your reclaim',
    description: [
      'Bearer, the reservation’s buyer only (anyone else: 404). Send `acceptTerms: true` with the `termsVersion` and `termsHash` of GET /api/pools/{id}/terms (400 `terms_outdated` otherwise). Needs a linked, funded ledger account (400 `ledger_account_required` / `ledger_account_not_found`).',
      'Answers the unsigned deposit: a claimable balance of exactly the reservation’s amount from your linked account, claimable by the pool’s escrow until `reclaimAfter` and by you from then on, bound to the reservation by its memo, valid until the reservation expires. Sign it client-side and submit it (then pay with `txHash`), or pay with the `signedXdr`.',
      'Also answers your `reclaim`: the claim of that deposit back to you, valid from `reclaimAfter`, to keep in case the platform and the organiser both vanish. It is shown to you only (never in events, read models or anyone else’s answers). Signing again answers a deposit and reclaim rebuilt for your account’s current sequence.',
    ].join('\n\n'),
    tags: ['Reservation'],
    auth: 'required',
    params: ReservationParams,
    body: z.object({ acceptTerms: z.literal(true), termsVersion: z.string().min(1).max(40), termsHash: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
    example: signExample,
    idempotent: true,
    success: { status: 200, description: 'The deposit to sign and your reclaim', schema: SignResult },
    errors: [400, 401, 404, 503],
    handler: (ctx) => {
      const current = currentReservationTerms();
      if (ctx.body.termsVersion !== current.version || ctx.body.termsHash !== current.hash) {
        throw new ValidationError({ termsHash: [`the current terms are version ${current.version} (hash ${current.hash})`] }, 'These are not the current terms', 'terms_outdated');
      }
      return signReservation(deps, ctx, ctx.params.id, ctx.params.reservationId, ctx.auth!, (o, deposit) =>
        answerWith(200, (x) => ({
          reservation: reservationOf(x.state, ctx.params.reservationId, clock()),
          payment: { ...deposit.payment, networkPassphrase: passphrase },
          reclaim: { ...deposit.reclaim, networkPassphrase: passphrase },
        }))(o),
      );
    },
  });

  const pay = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/reservations/{reservationId}/pay',
    summary: 'Pay: the deposit is verified on the ledger',
    description: [
      'Bearer, the reservation’s buyer only. Primary path: you submitted the signed deposit yourself; send `txHash`. Fallback: send `signedXdr` and the service submits it (only if it is exactly this reservation’s deposit).',
      'The service reads the transaction back from the ledger and checks that it succeeded and holds exactly one claimable balance: from your linked account, in the stablecoin (code **and** issuer), of exactly the reservation’s amount, with this reservation’s memo, claimable by the escrow before `reclaimAfter` and by you from then on, and by no one else. Then the reservation is PAID.',
      'Answers `{paid: true, reservation}`; `{pending: true}` while the ledger does not show the transaction (call again); `{idempotent: true}` on a repeat. When the deposit came is the ledger’s close time, not the time of this call: one the ledger closed before `expiresAt` is PAID even after the reservation expired, if its units are still free. One that landed after, on a cancelled reservation, a second one, or one whose units went to another buyer since the expiry is recorded as owed back: `{paid: false, latePayment: true}`; its `refund` is due at once (a settlement the organiser can prepare even while the pool is open), and `reclaim` lists it for `reclaimAfter`. A forged, short, wrong-asset, wrong-memo or another reservation’s deposit is a 400 `payment_mismatch` and never marks anything paid; money the transaction paid straight into the escrow account is recorded as owed back to its sender (the next settlement pays it back).',
    ].join('\n\n'),
    tags: ['Reservation'],
    auth: 'required',
    params: ReservationParams,
    body: z
      .object({ txHash: TxHash.optional(), signedXdr: z.string().min(1).max(20_000).optional() })
      .strict()
      .refine((b) => b.txHash !== undefined || b.signedXdr !== undefined, { message: 'give txHash or signedXdr', path: ['txHash'] }),
    example: payExample,
    idempotent: true,
    success: { status: 200, description: 'Paid, pending, idempotent or late', schema: PayResult },
    errors: [400, 401, 404, 503],
    handler: (ctx) =>
      payReservation(deps, ctx, ctx.params.id, ctx.params.reservationId, ctx.body, ctx.auth!, (o, observed) =>
        answerWith(200, (x) => {
          const reservation = reservationOf(x.state, ctx.params.reservationId, clock());
          const paid = reservation.payment?.txHash === observed.txHash;
          return {
            paid,
            ...(x.events.length === 0 ? { idempotent: true } : {}),
            ...(!paid ? { latePayment: true, reason: 'the reservation no longer held when the deposit landed, or its units went to others since: it is owed back' } : {}),
            txHash: observed.txHash,
            reservation,
          };
        })(o),
      ),
  });

  const cancel = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/reservations/{reservationId}/cancel',
    summary: 'Cancel a PENDING reservation',
    description: 'Bearer, the buyer only. Frees the units at once. A PAID reservation is refunded through the escrow, not cancelled (400 `reservation_paid`); an expired one is 400 `reservation_expired`; cancelling twice answers the cancelled reservation.',
    tags: ['Reservation'],
    auth: 'required',
    params: ReservationParams,
    idempotent: true,
    success: { status: 200, description: 'The cancelled reservation', schema: ReservationSchema },
    errors: [400, 401, 404, 503],
    handler: async (ctx) => {
      const { id: poolId, reservationId } = ctx.params;
      const tenantId = tenantOf(ctx);
      const actor = await deps.facts.actor(ctx.auth!);
      const now = clock().toISOString();
      const { answer } = await executeCommand(deps, {
        stream: poolStream(poolId),
        aggregate: poolAggregate,
        decide: ({ pool }) =>
          decideReservation({ type: 'CancelReservation', data: { reservationId }, metadata: buyerMeta(actor, now, ctx.ip) }, poolInTenant(pool, tenantId)),
        respond: answerWith(200, (o) => reservationOf(o.state, reservationId, clock())),
        ...fromRequest(ctx, tenantId, now),
      });
      return answer;
    },
  });

  return [reserve, sign, pay, cancel];
};
