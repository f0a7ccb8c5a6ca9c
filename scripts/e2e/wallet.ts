import { BASE_FEE, Horizon, Keypair, Operation, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import type { Services } from '@cagnotte/infra';

/**
 * A user's own Stellar wallet on the embedded sandbox network, as a partner front end holds it: keys made here,
 * every signature made here with the SDK, every transaction through Horizon's HTTP API.
 */
export interface Wallet {
  keypair: Keypair;
  horizon: Horizon.Server;
  passphrase: string;
}

export const horizonOf = (url: string) => new Horizon.Server(`${url}/sandbox/horizon`, { allowHttp: true });

/** A funded account that trusts the stablecoin and (with `stablecoin`) holds 1,000 of it: friendbot, changeTrust, friendbot. */
export const fundedWallet = async (url: string, services: Services, { stablecoin = true } = {}): Promise<Wallet> => {
  const horizon = horizonOf(url);
  const passphrase = services.config.STELLAR_NETWORK_PASSPHRASE;
  const keypair = Keypair.random();
  await horizon.friendbot(keypair.publicKey()).call();
  const account = await horizon.loadAccount(keypair.publicKey());
  const trust = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: passphrase })
    .addOperation(Operation.changeTrust({ asset: services.ledger.asset }))
    .setTimeout(60)
    .build();
  trust.sign(keypair);
  await horizon.submitTransaction(trust);
  if (stablecoin) await horizon.friendbot(keypair.publicKey()).call();
  return { keypair, horizon, passphrase };
};

/** Links the wallet to the user's account the partner's way: challenge, sign, link. */
export const linkWallet = async (url: string, token: string, wallet: Wallet): Promise<void> => {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    const json = (await res.json()) as { data?: { transaction?: string } };
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const ch = await post('/api/me/ledger/challenge', { account: wallet.keypair.publicKey() });
  const tx = new Transaction(ch.data!.transaction!, wallet.passphrase);
  tx.sign(wallet.keypair);
  await post('/api/me/ledger/link', { transaction: tx.toXDR() });
};

/** Signs an unsigned transaction the service handed out, with the wallet's key. */
export const signXdr = (wallet: Wallet, unsigned: string): Transaction => {
  const tx = new Transaction(unsigned, wallet.passphrase);
  tx.sign(wallet.keypair);
  return tx;
};
