import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  NotFoundError,
  ValidationError,
  decideCaptureBusinessIdentity,
  decideLinkLedgerAccount,
  decidePrepareGrant,
  decideSettleGrant,
  findGrant,
  paymentMismatch,
  type Account,
  type ObservedPayment,
  type OrganiserGrant,
} from '@cagnotte/domain';
import type { DomainEvent } from '@cagnotte/event-schemas';
import {
  LedgerRejectedError,
  LedgerUnavailableError,
  defineRoute,
  OrganiserGrantSchema,
  type BuiltPayment,
  grantMemoHash,
  ledgerCall,
  organiserGrantView,
  isStellarAccountId,
  type AuthContext,
  type RequestContext,
  type RouteDef,
  type Services,
} from '@cagnotte/infra';
import { MANDATE_TEXTS, mandateHash } from '../identity/mandates';
import { loadAccount } from '../shared/context';
import { onAccount as accountCommand, positionHeader } from './account-command';


/** The organiser activation fee: exactly one unit of the euro stablecoin, in Stellar's 7 decimals. */
export const ORGANISER_FEE = '1.0000000';

const StellarAccount = z
  .string()
  .regex(/^G[A-Z2-7]{55}$/, 'must be a Stellar account id (G…)')
  .refine(isStellarAccountId, 'is not a valid Stellar account id (bad checksum)');
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

export interface MeDeps {
  services: Services;
  clock: () => Date;
}

type Ctx = Pick<RequestContext<unknown, unknown, unknown>, 'auth' | 'requestId' | 'ip'>;

export const makePersonaRoutes = ({ services, clock }: MeDeps): RouteDef[] => {
  const cfg = services.config;
  const organiserLimit = (step: string) => ({ name: `organiser-${step}`, limit: cfg.RATE_LIMIT_ORGANISER_PER_MINUTE, windowSeconds: cfg.RATE_LIMIT_WINDOW_SECONDS });

  const onAccount = <T>(ctx: Ctx, tenantId: string, decide: (a: Account | null) => { events: DomainEvent[]; result: T }) =>
    accountCommand(services, clock, ctx, tenantId, decide);

  const loadOwn = async (auth: AuthContext): Promise<Account> => {
    const state = await loadAccount(services.store, auth.userId);
    if (!state) throw new NotFoundError('account');
    return state;
  };

  const grantView = (grant: OrganiserGrant, built?: BuiltPayment) => organiserGrantView(services.ledger, grant, built);

  const becomeSeller = defineRoute({
    method: 'post',
    path: '/api/me/become-seller',
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
      const auth = ctx.auth!;
      const tenant = ctx.tenant!;
      const now = clock().toISOString();
      const { result, state, position } = await onAccount(ctx, tenant.id, (account) => {
        if (account?.accountType === 'BUSINESS') return { events: [], result: { already: true } };
        const events = decideCaptureBusinessIdentity(account, ctx.body, 'become-seller', now);
        if (ctx.body.acceptFeeMandate) {
          const text = MANDATE_TEXTS.FEE;
          events.push({
            type: 'MandateAccepted',
            data: { mandateId: randomUUID(), userId: auth.userId, kind: 'FEE', version: text.version, hash: mandateHash(text.text), ip: ctx.ip.slice(0, 64), acceptedAt: now },
          });
        }
        return { events, result: { already: false } };
      });
      return {
        data: { accountType: 'BUSINESS' as const, role: state!.role, ...(result.already ? { alreadyBusiness: true } : {}) },
        headers: positionHeader(position),
      };
    },
  });

  const challenge = defineRoute({
    method: 'post',
    path: '/api/me/ledger/challenge',
    summary: 'Get a challenge to prove control of a Stellar account (SEP-10 shape)',
    description:
      'Bearer. Answers a challenge transaction signed by the service: sequence 0, a `manageData` operation sourced by your account holding a random nonce, valid 5 minutes. Sign it with the account\'s key(s) and send it to `POST /api/me/ledger/link`. It is never submitted to the ledger.',
    tags: ['Auth'],
    auth: 'required',
    body: z.object({ account: StellarAccount }),
    success: {
      status: 200,
      description: 'The challenge',
      schema: z.object({ transaction: z.string(), networkPassphrase: z.string(), expiresAt: z.string() }).describe('LedgerChallenge'),
    },
    errors: [400, 401],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const c = services.ledger.challenge(ctx.body.account);
      await services.oneTime.put('ledger-challenge', c.hash, auth.userId, 300);
      return { data: { transaction: c.xdr, networkPassphrase: services.ledger.settings.networkPassphrase, expiresAt: c.expiresAt } };
    },
  });

  const link = defineRoute({
    method: 'post',
    path: '/api/me/ledger/link',
    summary: 'Link a Stellar account by returning its signed challenge',
    description:
      'Bearer. Verifies the challenge the SEP-10 way: our signature and time bounds, then your signatures (the medium threshold of the account\'s signers when it exists on the ledger, its master key when not). A challenge works once and only for the user who asked for it. The linked account replaces any previous one and appears in `/api/auth/me` as `wallet.ledgerAccount`.',
    tags: ['Auth'],
    auth: 'required',
    body: z.object({ transaction: z.string().min(1).max(20_000) }),
    success: { status: 200, description: 'Linked', schema: z.object({ ledgerAccount: z.string() }) },
    errors: [400, 401],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const verified = await ledgerCall(() => services.ledger.verifyChallenge(ctx.body.transaction));
      const owner = await services.oneTime.take('ledger-challenge', verified.hash);
      if (owner !== auth.userId) {
        throw new ValidationError({ transaction: ['this challenge was not issued to you, or was already used'] }, 'Unknown or used challenge', 'invalid_challenge');
      }
      const { position } = await onAccount(ctx, auth.tenantId, (account) => ({
        events: decideLinkLedgerAccount(account, verified.account, verified.hash, clock().toISOString()),
        result: null,
      }));
      return { data: { ledgerAccount: verified.account }, headers: positionHeader(position) };
    },
  });

  const prepare = defineRoute({
    method: 'post',
    path: '/api/me/become-organiser/prepare',
    summary: 'Start becoming an organiser: the unsigned fee payment',
    description:
      'Bearer, gated, rate-limited. For buyers (CONSUMER, role `user`) with a linked ledger account (400 `ledger_account_required` otherwise). Answers an unsigned payment of exactly 1 unit of the euro stablecoin from your linked account to the platform account, bound to a new grant by its MEMO_HASH. The same `nonce` answers the same grant; without one, an open grant is reused. An organiser gets `{alreadyOrganiser: true}`.',
    tags: ['Auth'],
    auth: 'required',
    gate: 'user',
    body: z.object({ nonce: z.string().uuid().optional() }),
    rateLimit: organiserLimit('prepare'),
    success: { status: 200, description: 'The grant, or alreadyOrganiser', schema: PrepareResult },
    errors: [400, 401, 404, 429, 503],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const tenant = ctx.tenant!;
      const current = await loadOwn(auth);
      if (current.role === 'organiser') return { data: { alreadyOrganiser: true as const } };
      const grantId = randomUUID();
      const input = {
        grantId,
        nonce: ctx.body.nonce ?? null,
        destination: services.ledger.settings.platformAccount,
        assetCode: services.ledger.settings.assetCode,
        assetIssuer: services.ledger.settings.assetIssuer,
        amount: ORGANISER_FEE,
        memoHash: grantMemoHash(grantId),
      };
      // The payment is built before anything is recorded: an unfunded account or a silent ledger leaves no grant behind.
      const source = current.ledgerAccount;
      const built = source && current.accountType === 'CONSUMER' ? await ledgerCall(() => services.ledger.buildFeePayment(source, ORGANISER_FEE, input.memoHash)) : undefined;
      const { result, position } = await onAccount(ctx, tenant.id, (account) => {
        const outcome = decidePrepareGrant(account, input, clock().toISOString());
        return { events: outcome.kind === 'grant' ? outcome.events : [], result: outcome };
      });
      if (result.kind === 'already_organiser') return { data: { alreadyOrganiser: true as const } };
      // A new grant answers the payment built above; a reused open grant has its own memo, so its own payment.
      return { data: await grantView(result.grant, result.grant.grantId === grantId ? built : undefined), headers: positionHeader(position) };
    },
  });

  const submit = defineRoute({
    method: 'post',
    path: '/api/me/become-organiser/submit',
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
      const tenant = ctx.tenant!;
      const account = await loadOwn(auth);
      const grant = findGrant(account, ctx.body.grantId);
      if (!grant) throw new NotFoundError('grant');
      if (grant.status === 'SETTLED') return { data: { settled: true, role: account.role, idempotent: true, txHash: grant.txHash! } };
      if (account.role === 'organiser') return { data: { settled: false, role: account.role, idempotent: true, reason: 'already_organiser' } };

      let txHash = ctx.body.txHash;
      const via = ctx.body.signedXdr !== undefined ? ('signedXdr' as const) : ('txHash' as const);
      if (ctx.body.signedXdr !== undefined) {
        const tx = services.ledger.parseEnvelope(ctx.body.signedXdr);
        if (!tx) throw new ValidationError({ signedXdr: ['is not a transaction envelope for this network'] }, 'Invalid signed transaction', 'invalid_xdr');
        const hash = Buffer.from(tx.hash()).toString('hex');
        if (txHash && txHash !== hash) throw new ValidationError({ txHash: ['does not match signedXdr'] });
        txHash = hash;
        // Nothing is submitted on the user's behalf unless it is exactly the grant's payment.
        const mismatch = paymentMismatch(grant, services.ledger.describePayment(tx, { txHash: hash, ledger: 0, successful: true }));
        if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not settle this grant: ${mismatch.message}`, 'payment_mismatch');
        try {
          await services.ledger.submit(tx);
        } catch (e) {
          if (e instanceof LedgerUnavailableError) return { data: { settled: false, pending: true, reason: 'ledger_unavailable', txHash: hash } };
          if (!(e instanceof LedgerRejectedError)) throw e;
          // Already on the ledger (the client submitted it too): carry on and verify it.
          const already = await ledgerCall(() => services.ledger.observePayment(hash));
          if (!already) {
            const codes = [e.resultCodes.transaction, ...(e.resultCodes.operations ?? [])].filter((c): c is string => !!c);
            throw new ValidationError({ signedXdr: codes.length ? codes : [e.message] }, e.message, 'ledger_rejected');
          }
        }
      }
      const observed: ObservedPayment | null = await ledgerCall(() => services.ledger.observePayment(txHash!));
      if (!observed) return { data: { settled: false, pending: true, reason: 'not_on_ledger_yet', txHash: txHash! } };
      const { result, state, position } = await onAccount(ctx, tenant.id, (a) => {
        const outcome = decideSettleGrant(a, grant.grantId, observed, via, clock().toISOString());
        return { events: outcome.kind === 'settled' ? outcome.events : [], result: outcome.kind };
      });
      return {
        data: { settled: true, role: state!.role, ...(result === 'idempotent' ? { idempotent: true } : {}), txHash: observed.txHash },
        headers: positionHeader(position),
      };
    },
  });

  return [becomeSeller, challenge, link, prepare, submit];
};
