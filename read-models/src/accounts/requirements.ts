import { z } from 'zod';
import type { V1AccountDoc } from './fold';

/**
 * What an account still needs before it can move money, Stripe-like: `currentlyDue` (what the partner must collect:
 * the DAC7 identity of a business, a linked wallet), `pendingVerification` (given, waiting on the ledger: a linked
 * wallet that does not exist there yet or does not trust the stablecoin), and why it is disabled, if it is.
 */
export const V1Requirements = z
  .object({
    currentlyDue: z.array(z.string()).describe('`business.companyName`, `business.siret` (or `business.taxId`), `wallet`'),
    pendingVerification: z.array(z.string()).describe('`wallet.trustline`: the wallet is linked but cannot hold the stablecoin yet'),
    disabledReason: z.string().nullable().describe('`requirements.wallet_missing`, `requirements.past_due`, `requirements.pending_verification`, or null'),
  })
  .describe('V1AccountRequirements');
export type V1Requirements = z.infer<typeof V1Requirements>;

/** `walletReady`: the linked wallet exists on the ledger and trusts the stablecoin (null: not asked, or no wallet). */
export const requirementsOf = (a: Pick<V1AccountDoc, 'accountType' | 'business' | 'wallet'>, walletReady: boolean | null): V1Requirements => {
  const currentlyDue: string[] = [];
  if (a.accountType === 'BUSINESS') {
    if (!a.business?.companyName) currentlyDue.push('business.companyName');
    if (!a.business) currentlyDue.push('business.siret');
  }
  if (!a.wallet) currentlyDue.push('wallet');
  const pendingVerification = a.wallet && walletReady === false ? ['wallet.trustline'] : [];
  const disabledReason = !a.wallet
    ? 'requirements.wallet_missing'
    : currentlyDue.length > 0
      ? 'requirements.past_due'
      : pendingVerification.length > 0
        ? 'requirements.pending_verification'
        : null;
  return { currentlyDue, pendingVerification, disabledReason };
};
