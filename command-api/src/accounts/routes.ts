import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Transaction } from '@stellar/stellar-sdk';
import { ValidationError, accountAggregate, decideAccount, type Account } from '@cagnotte/domain';
import { CountryCode, PartnerMetadata } from '@cagnotte/event-schemas';
import { defineRoute, fromPrefixedId, hashPassword, ledgerCall, prefixedIdParam, registerV1ErrorCodes, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { V1Account, figuresOf, renderV1Account, type V1AccountFigures, type V1AccountViewDeps } from '@cagnotte/read-models';
import { accountStream, loadAccount } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';
import { withCredentials, type RegisterDeps } from '../identity/register';
import { StellarAccount } from '../ledger/routes';
import { issueWalletChallenge, linkWallet, type WalletLinkDeps } from '../ledger/link';
import { NO_FIGURES, accountFactsOf, accountInScope, partnerActor, type PartnerScope } from './scope';

// /v1/accounts: a partner's end customers. An `acct_` id is an identity account of the tenant (docs/v1/accounts.md).

export interface AccountV1Deps extends WalletLinkDeps, RegisterDeps {
  view: V1AccountViewDeps;
  /** Production: a session's mode is live, and so is a signup's account. */
  production: boolean;
}

registerV1ErrorCodes({
  account_not_found: 'No such account for this key: missing, another tenant’s or of the other mode',
  organiser_required: 'Accounts and transfers are managed by the tenant’s organisers (a session) and their API keys',
  email_taken: 'An account of the tenant already has this email',
  business_identity_recorded: 'The account’s business identity is already recorded',
  business_identity_invalid: 'The DAC7 identity is incomplete: a SIRET (France), or a taxCountry with a taxId or an rccm',
  invalid_challenge: 'The wallet challenge is unknown, expired, already used, or names another wallet',
  challenge_not_signed: 'The wallet challenge is not signed by the wallet’s key(s)',
  ledger_unavailable: 'The ledger did not answer: retry shortly',
});

const Business = z
  .object({
    companyName: z.string().trim().min(1).max(120),
    siret: z.string().regex(/^\d{14}$/, 'must be exactly 14 digits').optional(),
    taxCountry: CountryCode.optional(),
    taxId: z.string().trim().min(4).max(40).optional(),
    rccm: z.string().trim().min(4).max(40).optional(),
  })
  .strict()
  .describe('The DAC7 identity: a SIRET (France), or a taxCountry with a taxId or an rccm');

const CreateAccountBody = z
  .object({
    email: z.string().trim().email().max(320),
    name: z.string().trim().min(1).max(200).optional(),
    type: z.enum(['individual', 'business']),
    business: Business.optional(),
    country: CountryCode.optional().describe('Default FR'),
    metadata: PartnerMetadata.optional(),
  })
  .strict()
  .describe('V1AccountCreate');

const UpdateAccountBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    metadata: PartnerMetadata.optional().describe('Merged into the metadata; a key set to "" is removed'),
    business: Business.optional().describe('A business account’s DAC7 identity, when none is recorded yet'),
  })
  .strict()
  .describe('V1AccountUpdate');

const IdParams = z.object({ id: prefixedIdParam('acct') });

const WalletChallenge = z
  .object({
    object: z.literal('wallet_challenge'),
    transaction: z.string().describe('A SEP-10 style challenge (base64 XDR), never submitted'),
    hash: z.string().describe('What to sign (hex): the transaction’s hash for this network'),
    networkPassphrase: z.string(),
    expiresAt: z.string(),
  })
  .describe('V1WalletChallenge');

const LinkWalletBody = z
  .object({
    publicKey: StellarAccount,
    signature: z.string().max(200).optional().describe('The ed25519 signature (base64) of the challenge’s `hash` by `publicKey`'),
    transaction: z.string().max(20_000).optional().describe('Or the challenge signed as a whole (accounts with several signers)'),
  })
  .strict()
  .refine((b) => (b.signature === undefined) !== (b.transaction === undefined), { message: 'give either signature or transaction', path: ['signature'] });

/** The params' id, valid by its schema. */
const accountIdOf = (id: string): string => fromPrefixedId('acct', id)!;

export const makeAccountV1Routes = (deps: AccountV1Deps): RouteDef[] => {
  const { clock, production } = deps;
  const scopeOf = (ctx: RequestContext<unknown, unknown, unknown>) => partnerActor(ctx, { store: deps.store, production });
  const render = (account: Account, figures: V1AccountFigures, scope: PartnerScope) => renderV1Account(accountFactsOf(accountInScope(account, scope)), figures, production);

  const create = defineRoute({
    method: 'post',
    path: '/v1/accounts',
    summary: 'Create an account (a partner’s end customer)',
    description:
      'An identity account of the tenant, without a password (its holder signs in to /api after a password reset). A business account records its DAC7 identity when `business` is given; otherwise `requirements.currentlyDue` lists it. The email is unique in the tenant (409 `email_taken`).',
    tags: ['v1 Accounts'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    body: CreateAccountBody,
    success: { status: 200, description: 'The account', schema: V1Account },
    errors: [400, 401, 403, 404, 409],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const b = ctx.body;
      if (b.business && b.type !== 'business') throw new ValidationError({ business: ['only for a business account'] });
      const userId = randomUUID();
      const now = clock().toISOString();
      const email = b.email.toLowerCase();
      // No password: a random one nobody knows, until the holder resets it.
      const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
      const run = (within?: Parameters<Parameters<typeof withCredentials>[2]>[0]) =>
        executeCommand(deps, {
          stream: accountStream(userId),
          aggregate: accountAggregate,
          decide: (state) =>
            decideAccount(
              {
                type: 'CreateAccountForPartner',
                data: {
                  userId,
                  tenantId: scope.tenantId,
                  email,
                  phone: null,
                  displayName: b.name ?? '',
                  role: 'user',
                  accountType: b.type === 'business' ? 'BUSINESS' : 'CONSUMER',
                  country: b.country,
                  signupSource: 'v1',
                  business: b.business ?? null,
                  livemode: scope.livemode,
                  createdVia: scope.keyId,
                  metadata: b.metadata ?? {},
                },
                metadata: { now },
              },
              state,
            ),
          respond: (o) => ({ data: render(o.state, NO_FIGURES, scope) }),
          ...fromRequest(ctx, scope.tenantId, now),
          ...(within ? { within } : {}),
        });
      const { answer } = await withCredentials(deps, { userId, tenantId: scope.tenantId, email, phone: null, passwordHash }, run);
      return answer;
    },
  });

  const update = defineRoute({
    method: 'post',
    path: '/v1/accounts/{id}',
    summary: 'Update an account’s name, metadata or missing business identity',
    tags: ['v1 Accounts'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    params: IdParams,
    body: UpdateAccountBody,
    success: { status: 200, description: 'The account', schema: V1Account },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const userId = accountIdOf(ctx.params.id);
      const now = clock().toISOString();
      const before = accountInScope(await loadAccount(deps.store, userId), scope);
      const figures = await ledgerCall(() => figuresOf(deps.view, { userId, wallet: before.ledgerAccount }));
      const { answer } = await executeCommand(deps, {
        stream: accountStream(userId),
        aggregate: accountAggregate,
        decide: (state) => {
          accountInScope(state, scope);
          return decideAccount({ type: 'UpdateAccountProfile', data: { displayName: ctx.body.name, metadata: ctx.body.metadata, business: ctx.body.business }, metadata: { now } }, state);
        },
        respond: (o) => ({ data: render(o.state, figures, scope) }),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return answer;
    },
  });

  const challenge = defineRoute({
    method: 'post',
    path: '/v1/accounts/{id}/wallet/challenge',
    operationId: 'createAccountWalletChallenge',
    summary: 'Get a challenge to prove the account holder controls a Stellar account',
    description:
      'As /api/me/ledger/challenge, for the account: a server-signed SEP-10 style transaction, valid 5 minutes, usable once and only for this account. The holder signs its `hash` with the wallet’s key (non-custodial: the key never reaches the service) and you send the signature to `POST /v1/accounts/{id}/wallet`.',
    tags: ['v1 Accounts'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    params: IdParams,
    body: z.object({ publicKey: StellarAccount }).strict(),
    success: { status: 200, description: 'The challenge', schema: WalletChallenge },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const userId = accountIdOf(ctx.params.id);
      accountInScope(await loadAccount(deps.store, userId), scope);
      const c = await issueWalletChallenge(deps, userId, ctx.body.publicKey);
      // The {publicKey, signature} form: the challenge is found again by its account and key.
      await deps.oneTime.put('v1-wallet-challenge', `${userId}:${ctx.body.publicKey}`, c.transaction, 300);
      return { data: { object: 'wallet_challenge' as const, transaction: c.transaction, hash: c.hash, networkPassphrase: c.networkPassphrase, expiresAt: c.expiresAt } };
    },
  });

  const link = defineRoute({
    method: 'post',
    path: '/v1/accounts/{id}/wallet',
    operationId: 'linkAccountWallet',
    summary: 'Link the account’s wallet with its signed challenge',
    description:
      'Verifies the challenge as /api/me/ledger/link does (our signature and time bounds, then the medium threshold of the account’s signers when it exists on the ledger, its master key when not): `signature` is the ed25519 signature of the challenge’s `hash` by `publicKey`, or `transaction` the challenge signed as a whole. The wallet replaces any previous one.',
    tags: ['v1 Accounts'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    params: IdParams,
    body: LinkWalletBody,
    example: {
      publicKey: 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H',
      signature: 'mKZ0b7kQp1a7oXg3cJ4x0dVQ2m0c8oXyqv1m8a0Q0n3bC7cYt8m2P6o1Kp9r3e5t7u9w1y3A5C7E9G1I3K5M7Ow==',
    },
    success: { status: 200, description: 'The account, its wallet linked', schema: V1Account },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const userId = accountIdOf(ctx.params.id);
      const now = clock().toISOString();
      const { publicKey, signature, transaction } = ctx.body;
      accountInScope(await loadAccount(deps.store, userId), scope);
      let signed = transaction;
      if (signature !== undefined) {
        const xdr = await deps.oneTime.take('v1-wallet-challenge', `${userId}:${publicKey}`);
        if (!xdr) throw new ValidationError({ signature: ['no challenge of this account for this publicKey: ask for one first (they last 5 minutes)'] }, 'Unknown or used challenge', 'invalid_challenge');
        const tx = new Transaction(xdr, deps.ledger.settings.networkPassphrase);
        try {
          tx.addSignature(publicKey, signature);
        } catch {
          throw new ValidationError({ signature: ['is not a signature of the challenge by publicKey'] }, 'The challenge is not signed by the account', 'challenge_not_signed');
        }
        signed = tx.toXDR();
      }
      const figures = await ledgerCall(() => figuresOf(deps.view, { userId, wallet: publicKey }));
      const { answer } = await linkWallet(
        deps,
        {
          userId,
          signedChallenge: signed!,
          now,
          expectedAccount: publicKey,
          check: (account) => {
            accountInScope(account, scope);
          },
          respond: (o) => ({ data: render(o.state, figures, scope) }),
        },
        fromRequest(ctx, scope.tenantId, now),
      );
      return answer!;
    },
  });

  return [create, update, challenge, link];
};
