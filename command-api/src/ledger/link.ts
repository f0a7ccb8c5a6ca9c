import { ValidationError, accountAggregate, decideAccount, type Account, type AccountEvent } from '@cagnotte/domain';
import { ledgerCall, type LedgerGateway, type OneTimeUse, type RouteAnswer } from '@cagnotte/infra';
import { accountStream, type AccountCommandDeps } from '../shared/context';
import { executeCommand, type Command } from '../shared/execute-command';
import type { CommandOutcome } from '../shared/run-command';

// One place for the rules of a wallet link (a SEP-10 style challenge signed by the account's keys), for the user's own
// (/api/me/ledger/…) and a partner's account (/v1/accounts/{id}/wallet…).

export interface WalletLinkDeps extends AccountCommandDeps {
  ledger: LedgerGateway;
  /** Single-use challenges, bound to the user they were issued to. */
  oneTime: OneTimeUse;
}

const CHALLENGE_TTL_SECONDS = 300;

/** A challenge for `account`, valid 5 minutes, that only `userId` can use (once). */
export const issueWalletChallenge = async (deps: Pick<WalletLinkDeps, 'ledger' | 'oneTime'>, userId: string, account: string) => {
  const c = deps.ledger.challenge(account);
  await deps.oneTime.put('ledger-challenge', c.hash, userId, CHALLENGE_TTL_SECONDS);
  return { transaction: c.xdr, hash: c.hash, networkPassphrase: deps.ledger.settings.networkPassphrase, expiresAt: c.expiresAt };
};

/**
 * Verifies a signed challenge the SEP-10 way (our signature and time bounds, then the account's signers) and that it
 * was issued to `userId` and not used yet, then records the link on the user's account stream. `check` runs on the
 * account as its stream says now (a partner's scope), `respond` renders the answer under the Idempotency-Key.
 */
export const linkWallet = async (
  deps: WalletLinkDeps,
  input: {
    userId: string;
    signedChallenge: string;
    now: string;
    /** The account the challenge must be for (the /v1 request names it). */
    expectedAccount?: string;
    check?: (account: Account) => void; respond?: (o: CommandOutcome<Account, AccountEvent>) => RouteAnswer;
  },
  request: Pick<Command<Account, AccountEvent>, 'metadata' | 'idempotency' | 'session'>,
) => {
  const verified = await ledgerCall(() => deps.ledger.verifyChallenge(input.signedChallenge));
  const owner = await deps.oneTime.take('ledger-challenge', verified.hash);
  if (input.expectedAccount !== undefined && verified.account !== input.expectedAccount) {
    throw new ValidationError({ publicKey: ['is not the account the challenge names'] }, 'Invalid challenge transaction', 'invalid_challenge');
  }
  if (owner !== input.userId) {
    throw new ValidationError({ transaction: ['this challenge was not issued to this account, or was already used'] }, 'Unknown or used challenge', 'invalid_challenge');
  }
  const outcome = await executeCommand(deps, {
    stream: accountStream(input.userId),
    aggregate: accountAggregate,
    decide: (account) => {
      input.check?.(account);
      return decideAccount({ type: 'LinkLedgerAccount', data: { ledgerAccount: verified.account, challengeHash: verified.hash }, metadata: { now: input.now } }, account);
    },
    ...request,
    ...(input.respond ? { respond: input.respond } : {}),
  });
  return { ledgerAccount: verified.account, ...outcome };
};
