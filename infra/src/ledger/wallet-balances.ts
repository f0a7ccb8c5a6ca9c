import type { LedgerGateway } from './gateway';

/**
 * What the ledger says of a user's wallet, for the /v1 accounts' balances: whether it exists and trusts the
 * stablecoin, and its balance of it (a decimal string, as Horizon gives it). Read, never held: non-custodial.
 */
export class LedgerWalletBalances {
  constructor(private readonly ledger: LedgerGateway) {}

  async of(wallet: string): Promise<{ exists: boolean; trusts: boolean; balance: string }> {
    const account = await this.ledger.loadAccount(wallet);
    if (!account) return { exists: false, trusts: false, balance: '0' };
    const { code, issuer } = { code: this.ledger.asset.getCode(), issuer: this.ledger.asset.getIssuer() };
    const line = account.balances.find((b) => 'asset_code' in b && b.asset_code === code && 'asset_issuer' in b && b.asset_issuer === issuer);
    return line ? { exists: true, trusts: true, balance: line.balance } : { exists: true, trusts: false, balance: '0' };
  }
}
