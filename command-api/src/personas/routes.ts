import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  NotFoundError,
  SCALE,
  ValidationError,
  accountWithMandatesAggregate,
  decideAccount,
  decideMandate,
  decideOrganiserGrant,
  findGrant,
  formatAmount,
  mandateAggregate,
  openGrantFor,
  organiserGrantAggregate,
  parseAmount,
  paymentMismatch,
  requireAccount,
  type ObservedPayment,
  type OrganiserGrant,
} from '@cagnotte/domain';
import { currentMandate, type DomainEvent, type FeeSchedule } from '@cagnotte/event-schemas';
import {
  defineRoute,
  grantMemoHash,
  ledgerCall,
  type Config,
  type LedgerGateway,
  type RouteDef,
} from '@cagnotte/infra';
import { OrganiserGrantSchema, organiserGrantView as grantViewOf, type BuiltPayment, type GrantFacts } from '@cagnotte/read-models';
import { accountStream, positionHeader, type AccountCommandDeps } from '../shared/context';
import { loadState } from '../shared/run-command';
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';
import { executeCommand, fromRequest } from '../shared/execute-command';

// The personas a user takes on: seller (a business identity, DAC7) and organiser (a grant paid on the ledger).

/**
 * The organiser activation fee of a tenant, in Stellar's 7 decimals: its fee schedule's `organiserActivation`, which
 * is the contract's one unit of the euro stablecoin unless the operator set another (`tenant fees --activation`).
 */
const activationFee = (schedule: Pick<FeeSchedule, 'organiserActivation'>): string => formatAmount(parseAmount(schedule.organiserActivation), SCALE);

/** The grant as the query side renders it, with the unsigned payment rebuilt by the ledger while it awaits a signature. */
const organiserGrantView = async (ledger: LedgerGateway, grant: GrantFacts, built?: BuiltPayment) =>
  grantViewOf(
    grant,
    ledger.settings.networkPassphrase,
    grant.status === 'SETTLED' ? null : (built ?? (await ledgerCall(() => ledger.buildFeePayment(grant.ledgerAccount, grant.amount, grant.memoHash)))),
  );

const TxHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-character hex transaction hash')
  .transform((h) => h.toLowerCase());

const PrepareResult = z.union([z.object({ alreadyOrganiser: z.literal(true) }), OrganiserGrantSchema.describe('OrganiserGrantPrepareResult')]);

const SubmitResult = z
  .object({
    settled: z.boolean().optional(),
    role: z.string().optional(),
    idempotent: z.boolean().optional(),
    pending: z.boolean().optional(),
    reason: z.string().optional(),
    txHash: z.string().optional(),
  })
  .describe('OrganiserGrantSubmitResult');

export interface OrganiserRouteDeps extends AccountCommandDeps {
  ledger: LedgerGateway;
  /** The tenant's fee schedule (its organiser activation fee). */
  tenantPolicy: (tenantId: string) => Promise<{ feeSchedule: Pick<FeeSchedule, 'organiserActivation'> }>;
  config: Pick<Config, 'RATE_LIMIT_ORGANISER_PER_MINUTE' | 'RATE_LIMIT_WINDOW_SECONDS'>;
}

/** The seller persona: become-seller records a business identity (DAC7). */
export const makeSellerRoutes = (deps: AccountCommandDeps): RouteDef[] => {
  const { clock } = deps;

  const becomeSeller = defineRoute({
    method: 'post',
    path: '/api/me/become-seller',
    operationId: 'becomeSeller',
    summary: 'Upgrade a CONSUMER account to BUSINESS',
    description:
      'Bearer, gated. Records the business identity for DAC7: `companyName` plus a `siret` (France, the default) or a `taxCountry` with a `taxId` (elsewhere). The role is unchanged. An account that is already BUSINESS answers `alreadyBusiness: true` and nothing changes (not even the mandate).',
    tags: ['Auth'],
    auth: 'required',
    gate: 'user',
    body: z.object({
      companyName: z.string().trim().min(1).max(120),
      siret: z.string().regex(/^\d{14}$/, 'must be exactly 14 digits').optional(),
      taxCountry: z
        .string()
        .length(2)
        .regex(/^[A-Za-z]{2}$/, 'must be 2 letters')
        .transform((c) => c.toUpperCase())
        .optional(),
      taxId: z.string().trim().min(4).max(40).optional(),
      acceptFeeMandate: z.boolean().optional(),
    }),
    success: {
      status: 200,
      description: 'Now (or already) a business account',
      schema: z.object({ accountType: z.literal('BUSINESS'), role: z.string(), alreadyBusiness: z.boolean().optional() }),
    },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const now = clock().toISOString();
      const { acceptFeeMandate, ...identity } = ctx.body;
      const { state, events, position } = await executeCommand(deps, {
        stream: accountStream(ctx.auth!.userId),
        aggregate: accountWithMandatesAggregate,
        decide: (s): DomainEvent[] => {
          const captured: DomainEvent[] = decideAccount({ type: 'CaptureBusinessIdentity', data: identity, metadata: { now } }, s.account);
          // Already BUSINESS: nothing changes, not even the mandate.
          if (captured.length === 0 || !acceptFeeMandate) return captured;
          const mandates = captured.reduce(mandateAggregate.evolve, s.mandates);
          const feeMandate = { mandateId: randomUUID(), kind: 'FEE' as const, text: currentMandate('FEE'), ip: ctx.ip.slice(0, 64), recordAgain: true };
          return [...captured, ...decideMandate({ type: 'AcceptMandate', data: feeMandate, metadata: { now } }, mandates)];
        },
        ...fromRequest(ctx, ctx.tenant!.id, now),
      });
      const account = requireAccount(state.account);
      return {
        data: { accountType: 'BUSINESS' as const, role: account.role, ...(events.length === 0 ? { alreadyBusiness: true } : {}) },
        headers: positionHeader(position),
      };
    },
  });

  return [becomeSeller];
};

/** The organiser persona: a grant prepared, paid from the linked ledger account, then settled with the role. */
export const makeOrganiserRoutes = (deps: OrganiserRouteDeps): RouteDef[] => {
  const { clock, ledger, config: cfg } = deps;
  const organiserLimit = (step: string) => ({ name: `organiser-${step}`, limit: cfg.RATE_LIMIT_ORGANISER_PER_MINUTE, windowSeconds: cfg.RATE_LIMIT_WINDOW_SECONDS });

  const grantView = (grant: OrganiserGrant, built?: BuiltPayment) => organiserGrantView(ledger, grant, built);

  const prepare = defineRoute({
    method: 'post',
    path: '/api/me/become-organiser/prepare',
    operationId: 'prepareOrganiserGrant',
    summary: 'Start becoming an organiser: the unsigned fee payment',
    description:
      'Bearer, gated, rate-limited. For buyers (CONSUMER, role `user`) with a linked ledger account (400 `ledger_account_required` otherwise). Answers an unsigned payment of exactly the tenant’s organiser activation fee (1 unit of the euro stablecoin unless the operator’s fee schedule says otherwise; `payment.amount`) from your linked account to the platform account, bound to a new grant by its MEMO_HASH. The same `nonce` answers the same grant; without one, an open grant is reused. An organiser gets `{alreadyOrganiser: true}`.',
    tags: ['Auth'],
    auth: 'required',
    gate: 'user',
    body: z.object({ nonce: z.string().uuid().optional() }),
    rateLimit: organiserLimit('prepare'),
    success: { status: 200, description: 'The grant, or alreadyOrganiser', schema: PrepareResult },
    errors: [400, 401, 404, 429, 503],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const current = requireAccount(await loadState(deps.store, accountStream(auth.userId), organiserGrantAggregate));
      if (current.role === 'organiser') return { data: { alreadyOrganiser: true as const } };
      const grantId = randomUUID();
      const fee = activationFee((await deps.tenantPolicy(ctx.tenant!.id)).feeSchedule);
      const input = {
        grantId,
        nonce: ctx.body.nonce ?? null,
        destination: ledger.settings.platformAccount,
        assetCode: ledger.settings.assetCode,
        assetIssuer: ledger.settings.assetIssuer,
        amount: fee,
        memoHash: grantMemoHash(grantId),
      };
      // The payment is built before anything is recorded: an unfunded account or a silent ledger leaves no grant behind.
      const source = current.ledgerAccount;
      const built = source && current.accountType === 'CONSUMER' ? await ledgerCall(() => ledger.buildFeePayment(source, fee, input.memoHash)) : undefined;
      const now = clock().toISOString();
      const { state, position } = await executeCommand(deps, {
        stream: accountStream(auth.userId),
        aggregate: organiserGrantAggregate,
        decide: (grants) => decideOrganiserGrant({ type: 'PrepareGrant', data: input, metadata: { now } }, grants),
        ...fromRequest(ctx, ctx.tenant!.id, now),
      });
      const after = requireAccount(state);
      if (after.role === 'organiser') return { data: { alreadyOrganiser: true as const } };
      // The grant just prepared, or the open one that answers these terms.
      const grant = openGrantFor(after, input)!;
      // A new grant answers the payment built above; a reused open grant has its own memo, so its own payment.
      return { data: await grantView(grant, grant.grantId === grantId ? built : undefined), headers: positionHeader(position) };
    },
  });

  const submit = defineRoute({
    method: 'post',
    path: '/api/me/become-organiser/submit',
    operationId: 'submitOrganiserGrant',
    summary: 'Finish becoming an organiser: the paid fee is verified on the ledger',
    description: [
      'Bearer, gated, rate-limited. Primary path: you cosign and submit the payment yourself, then send `txHash`. Fallback: send `signedXdr` and the service submits it.',
      'The service reads the transaction back from the ledger and checks that it succeeded, that its single payment comes from your linked account, goes to the platform account, is in the stablecoin (code **and** issuer), is exactly 1.0000000, and carries this grant\'s memo. Then the grant is settled and the `organiser` role granted in one append.',
      'Answers `{settled: true, role}`; `{pending: true}` while the ledger does not show the transaction yet (call again); `{idempotent: true}` on a repeat. A payment that does not match is a 400 (`payment_mismatch`) and never grants; a signed XDR the ledger refuses is a 400 (`ledger_rejected`) with Horizon\'s result codes.',
    ].join('\n\n'),
    tags: ['Auth'],
    auth: 'required',
    gate: 'user',
    body: z
      .object({ grantId: z.string().min(1).max(64), txHash: TxHash.optional(), signedXdr: z.string().min(1).max(20_000).optional() })
      .refine((b) => b.txHash !== undefined || b.signedXdr !== undefined, { message: 'give txHash or signedXdr', path: ['txHash'] }),
    rateLimit: organiserLimit('submit'),
    success: { status: 200, description: 'Settled, pending or idempotent', schema: SubmitResult },
    errors: [400, 401, 404, 429, 503],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const account = requireAccount(await loadState(deps.store, accountStream(auth.userId), organiserGrantAggregate));
      const grant = findGrant(account, ctx.body.grantId);
      if (!grant) throw new NotFoundError('grant');
      if (grant.status === 'SETTLED') return { data: { settled: true, role: account.role, idempotent: true, txHash: grant.txHash! } };
      if (account.role === 'organiser') return { data: { settled: false, role: account.role, idempotent: true, reason: 'already_organiser' } };

      let txHash = ctx.body.txHash;
      const via = ctx.body.signedXdr !== undefined ? ('signedXdr' as const) : ('txHash' as const);
      if (ctx.body.signedXdr !== undefined) {
        const { tx, hash } = decodeSignedXdr(ledger, ctx.body.signedXdr, txHash);
        txHash = hash;
        // Nothing is submitted on the user's behalf unless it is exactly the grant's payment.
        const mismatch = paymentMismatch(grant, ledger.describePayment(tx, { txHash: hash, ledger: 0, successful: true }));
        if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not settle this grant: ${mismatch.message}`, 'payment_mismatch');
        if ((await submitClientSigned(ledger, tx, hash)) === 'unavailable') return { data: { settled: false, pending: true, reason: 'ledger_unavailable', txHash: hash } };
      }
      const observed: ObservedPayment | null = await ledgerCall(() => ledger.observePayment(txHash!));
      if (!observed) return { data: { settled: false, pending: true, reason: 'not_on_ledger_yet', txHash: txHash! } };
      const now = clock().toISOString();
      const { state, events, position } = await executeCommand(deps, {
        stream: accountStream(auth.userId),
        aggregate: organiserGrantAggregate,
        decide: (grants) => decideOrganiserGrant({ type: 'SettleGrant', data: { grantId: grant.grantId, payment: observed, via }, metadata: { now } }, grants),
        ...fromRequest(ctx, ctx.tenant!.id, now),
      });
      return {
        data: { settled: true, role: requireAccount(state).role, ...(events.length === 0 ? { idempotent: true } : {}), txHash: observed.txHash },
        headers: positionHeader(position),
      };
    },
  });

  return [prepare, submit];
};
