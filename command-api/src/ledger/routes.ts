import { z } from 'zod';
import { defineRoute, isStellarAccountId, type RouteDef } from '@cagnotte/infra';
import { positionHeader } from '../shared/context';
import { fromRequest } from '../shared/execute-command';
import { issueWalletChallenge, linkWallet, type WalletLinkDeps } from './link';

// The user's proven Stellar account: a SEP-10 style challenge, signed by the account's keys, links it.

export const StellarAccount = z
  .string()
  .regex(/^G[A-Z2-7]{55}$/, 'must be a Stellar account id (G…)')
  .refine(isStellarAccountId, 'is not a valid Stellar account id (bad checksum)');

export type LedgerRouteDeps = WalletLinkDeps;

export const makeLedgerRoutes = (deps: LedgerRouteDeps): RouteDef[] => {
  const { clock } = deps;

  const challenge = defineRoute({
    method: 'post',
    path: '/api/me/ledger/challenge',
    operationId: 'createLedgerChallenge',
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
      const { transaction, networkPassphrase, expiresAt } = await issueWalletChallenge(deps, ctx.auth!.userId, ctx.body.account);
      return { data: { transaction, networkPassphrase, expiresAt } };
    },
  });

  const link = defineRoute({
    method: 'post',
    path: '/api/me/ledger/link',
    operationId: 'linkLedgerAccount',
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
      const now = clock().toISOString();
      const { ledgerAccount, position } = await linkWallet(deps, { userId: auth.userId, signedChallenge: ctx.body.transaction, now }, fromRequest(ctx, auth.tenantId, now));
      return { data: { ledgerAccount }, headers: positionHeader(position) };
    },
  });

  return [challenge, link];
};
