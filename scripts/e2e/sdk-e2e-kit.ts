import { CagnotteError, verifyWebhook, type CagnotteClient, type SandboxWallet } from '@cagnotte/sdk';
import * as assert from 'uvu/assert';
import type { ReceivedDelivery, Receiver } from './webhook-receiver';

/**
 * What the SDK e2e specs (v1-sdk-*.e2e.spec.ts) share: an end customer's account with its own sandbox wallet linked
 * the non-custodial way, stablecoin balances to the stroop (through /v1/accounts and the sandbox Horizon), a webhook
 * endpoint pointing at a real receiver, and a refusal caught as a CagnotteError. Only the SDK talks to /v1.
 */

/** A decimal string ("80.0000001", "15.00") in stroops (7 decimals), without floats. */
export const stroops = (s: string): bigint => {
  const negative = s.startsWith('-');
  const [w, f = ''] = (negative ? s.slice(1) : s).split('.');
  const v = BigInt(w!) * 10_000_000n + BigInt(f.padEnd(7, '0').slice(0, 7));
  return negative ? -v : v;
};

/** The stablecoin of a harness's API (setup: an API key has no /v1 route that answers it). */
export const stablecoinOf = (services: { ledger: { settings: { assetCode: string; assetIssuer: string } } }) => ({ code: services.ledger.settings.assetCode, issuer: services.ledger.settings.assetIssuer });

export interface Customer {
  id: string;
  wallet: SandboxWallet;
}

/**
 * An end customer: its account (POST /v1/accounts), a wallet of its own on the sandbox network (with friendbot's
 * stablecoin when `fund`), linked through the challenge the holder signs (stellar.signHash) and POST …/wallet.
 * `asset` is passed: sandbox.createWallet reads it from GET /api/auth/me otherwise, which an API key may not call.
 */
export const customer = async (client: CagnotteClient, name: string, o: { asset: { code: string; issuer: string }; fund?: boolean }): Promise<Customer> => {
  const account = await client.accounts.create({ email: `${name.toLowerCase()}-${Math.random().toString(36).slice(2, 10)}@customer.test`, type: 'individual', name });
  const wallet = await client.sandbox.createWallet({ asset: o.asset, fund: o.fund ?? false });
  const challenge = await client.accounts.walletChallenge(account.id, { publicKey: wallet.publicKey });
  const linked = await client.accounts.linkWallet(account.id, { publicKey: wallet.publicKey, signature: wallet.signHash(challenge.hash) });
  assert.is(linked.id, account.id);
  return { id: account.id, wallet };
};

/** The account's stablecoin on the ledger as /v1/accounts/{id} reads it (`balances[EUR].available`), in stroops. */
export const available = async (client: CagnotteClient, accountId: string): Promise<bigint> => {
  const account = await client.accounts.retrieve(accountId);
  const eur = account.balances.find((b) => b.currency === 'EUR');
  return stroops(eur?.available ?? '0');
};

/** A ledger account's stablecoin read on the sandbox Horizon (`${baseUrl}/sandbox/horizon`), in stroops; 0 when it has none. */
export const onHorizon = async (wallet: SandboxWallet, account: string): Promise<bigint> => {
  const res = await fetch(`${wallet.horizonUrl}/accounts/${account}`);
  if (res.status === 404) return 0n;
  const body = (await res.json()) as { balances: Array<{ asset_code?: string; asset_issuer?: string; balance: string }> };
  const line = body.balances.find((b) => b.asset_code === wallet.asset.code && b.asset_issuer === wallet.asset.issuer);
  return stroops(line?.balance ?? '0');
};

/** Whether the ledger account exists on the sandbox Horizon (an escrow merged back does not). */
export const existsOnHorizon = async (wallet: SandboxWallet, account: string): Promise<boolean> => (await fetch(`${wallet.horizonUrl}/accounts/${account}`)).status === 200;

/** The refusal a call ends with, as a CagnotteError (fails when it resolves). */
export const refusal = async (p: Promise<unknown>): Promise<CagnotteError> => {
  try {
    await p;
  } catch (error) {
    assert.instance(error, CagnotteError);
    return error as CagnotteError;
  }
  return assert.unreachable('the call was expected to be refused, it succeeded') as never;
};

export interface VerifiedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** The deliveries a path of the receiver got, each verified with the SDK's verifyWebhook (throws on any that does not verify). */
export const verifiedOn = (receiver: Receiver, path: string, secret: string): VerifiedEvent[] =>
  receiver.on(path).map((d: ReceivedDelivery) => verifyWebhook<VerifiedEvent>(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }, secret));

/** Waits until the receiver's path got (verified) events of every type in `types` whose `data[key]` is `id`. */
export const awaitEvents = async (receiver: Receiver, path: string, secret: string, key: string, id: string, types: string[], timeoutMs = 30_000): Promise<string[]> => {
  const mine = () => verifiedOn(receiver, path, secret).filter((e) => e.data[key] === id);
  await receiver.until(() => types.every((t) => mine().some((e) => e.type === t)), `${types.join(', ')} for ${id} on ${path}`, timeoutMs);
  return mine().map((e) => e.type);
};

/** Waits until the receiver's path got (verified) events of every type in `types` that name `id` anywhere (as subject or in data). */
export const awaitEventsAbout = async (receiver: Receiver, path: string, secret: string, id: string, types: string[], timeoutMs = 30_000): Promise<VerifiedEvent[]> => {
  const mine = () => verifiedOn(receiver, path, secret).filter((e) => JSON.stringify(e).includes(id));
  await receiver.until(() => types.every((t) => mine().some((e) => e.type === t)), `${types.join(', ')} about ${id} on ${path}`, timeoutMs);
  return mine();
};
