import { z } from 'zod';
import { ValidationError, accountAggregate, decideAccount } from '@cagnotte/domain';
import { defineRoute, isStellarAccountId, ledgerCall, type LedgerGateway, type OneTimeUse, type RouteDef } from '@cagnotte/infra';
import { accountStream, positionHeader, type AccountCommandDeps } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';

// The user's proven Stellar account: a SEP-10 style challenge, signed by the account's keys, links it.

const StellarAccount = z
  .string()
  .regex(/^G[A-Z2-7]{55}$/, 'must be a Stellar account id (G…)')
  .refine(isStellarAccountId, 'is not a valid Stellar account id (bad checksum)');

export interface LedgerRouteDeps extends AccountCommandDeps {
  ledger: LedgerGateway;
  /** Single-use challenges, bound to the user they were issued to. */
  oneTime: OneTimeUse;
}

export const makeLedgerRoutes = (deps: LedgerRouteDeps): RouteDef[] => {
  const { clock, ledger, oneTime } = deps;

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
      const auth = ctx.auth!;
      const c = ledger.challenge(ctx.body.account);
      await oneTime.put('ledger-challenge', c.hash, auth.userId, 300);
      return { data: { transaction: c.xdr, networkPassphrase: ledger.settings.networkPassphrase, expiresAt: c.expiresAt } };
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
      const verified = await ledgerCall(() => ledger.verifyChallenge(ctx.body.transaction));
      const owner = await oneTime.take('ledger-challenge', verified.hash);
      if (owner !== auth.userId) {
        throw new ValidationError({ transaction: ['this challenge was not issued to you, or was already used'] }, 'Unknown or used challenge', 'invalid_challenge');
      }
      const now = clock().toISOString();
      const { position } = await executeCommand(deps, {
        stream: accountStream(auth.userId),
        aggregate: accountAggregate,
        decide: (account) => decideAccount({ type: 'LinkLedgerAccount', data: { ledgerAccount: verified.account, challengeHash: verified.hash }, metadata: { now } }, account),
        ...fromRequest(ctx, auth.tenantId, now),
      });
      return { data: { ledgerAccount: verified.account }, headers: positionHeader(position) };
    },
  });

  return [challenge, link];
};
