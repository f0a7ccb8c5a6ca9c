import { NotFoundError, type Account, type RegisteredAccount } from '@cagnotte/domain';
import type { V1AccountFacts, V1AccountFigures } from '@cagnotte/read-models';

/** Whose accounts a /v1 command reaches: the key's tenant, the key's mode (a signup's account is the environment's mode). */
export interface PartnerScope {
  tenantId: string;
  livemode: boolean;
  defaultLivemode: boolean;
}

/**
 * The account as its stream says now, if the caller may reach it; another tenant's, the other mode's and a missing
 * one are the same 404. Pure: decided on the state the command decides on.
 */
export const accountInScope = (account: Account, scope: PartnerScope): RegisteredAccount => {
  if (account.status === 'none' || account.tenantId !== scope.tenantId || (account.partner?.livemode ?? scope.defaultLivemode) !== scope.livemode) {
    throw new NotFoundError('account');
  }
  return account;
};

/** The account's facts as /v1 renders them, from the command's own state. */
export const accountFactsOf = (a: RegisteredAccount): V1AccountFacts => ({
  userId: a.userId,
  livemode: a.partner?.livemode ?? null,
  email: a.email,
  name: a.displayName,
  accountType: a.accountType,
  country: a.country,
  business: a.business,
  wallet: a.ledgerAccount,
  metadata: a.metadata,
  createdAt: a.registeredAt,
});

/** A new account's figures: no wallet, nothing sent, nothing in escrow. */
export const NO_FIGURES: V1AccountFigures = { onLedger: null, pending: 0n, inEscrow: 0n };
