/**
 * Stellar helpers for partners of the sandbox: signing what the API hands out to sign (deposits, settlements,
 * link challenges) with a key that never leaves you, and a funded wallet on the sandbox network in one call.
 */
import { BASE_FEE, Asset, Horizon, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';

/** Signs a transaction envelope (base64 XDR, a fee bump too) with `secretKey` (S…) and answers the signed XDR. */
export const signXdr = (xdr: string, secretKey: string, networkPassphrase: string): string => {
  const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
  tx.sign(Keypair.fromSecret(secretKey));
  return tx.toXDR();
};

/** Signs a challenge's hash (hex, as /v1/accounts/{id}/wallet/challenge answers it) and answers the signature, base64. */
export const signHash = (hashHex: string, secretKey: string): string => Buffer.from(Keypair.fromSecret(secretKey).sign(Buffer.from(hashHex, 'hex'))).toString('base64');

export const stellar = { signXdr, signHash };

export interface SandboxWallet {
  publicKey: string;
  secretKey: string;
  networkPassphrase: string;
  asset: { code: string; issuer: string };
  /** The sandbox's Horizon: `${baseUrl}/sandbox/horizon`. */
  horizonUrl: string;
  /** Signs with this wallet's key. */
  signXdr(xdr: string): string;
  /** Signs a challenge's hash (hex) with this wallet's key: the signature, base64. */
  signHash(hashHex: string): string;
}

export interface CreateWalletOptions {
  /** The API's root, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** Friendbot's stablecoin after the trustline (default true): the wallet holds 1,000 units. */
  fund?: boolean;
  /**
   * The stablecoin. Without it, read from GET /v1/ledger (public: no credential needed).
   */
  asset?: { code: string; issuer: string };
  apiKey?: string;
  sessionToken?: string;
  tenant?: string;
  /** Also link the wallet to the signed-in account (challenge, sign, link), as a partner front end does. */
  link?: boolean;
  fetch?: typeof globalThis.fetch;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * A new wallet on the sandbox network, as scripts/e2e/wallet.ts makes one: random keys, friendbot's lumens, a
 * trustline to the stablecoin, then (with `fund`) friendbot's stablecoin; with `link`, linked to the account.
 */
export const createWallet = async (options: CreateWalletOptions): Promise<SandboxWallet> => {
  const doFetch = options.fetch ?? globalThis.fetch;
  const baseUrl = trimSlash(options.baseUrl);
  const credential = options.apiKey ?? options.sessionToken;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (!credential) throw new Error(`sandbox.createWallet: ${path} needs apiKey or sessionToken`);
    const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
    if (options.tenant) headers['x-service-tenant'] = options.tenant;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await doFetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await res.json().catch(() => null)) as { success?: boolean; data?: T } | null;
    if (!res.ok || !json?.success) throw new Error(`sandbox.createWallet: ${method} ${path} answered ${res.status} ${JSON.stringify(json)}`);
    return json.data as T;
  };

  const horizonUrl = `${baseUrl}/sandbox/horizon`;
  const horizon = new Horizon.Server(horizonUrl, { allowHttp: horizonUrl.startsWith('http://') });
  const root = (await (await doFetch(`${horizonUrl}/`)).json()) as { network_passphrase?: string };
  if (!root.network_passphrase) throw new Error(`sandbox.createWallet: ${horizonUrl} is not a sandbox Horizon`);
  const networkPassphrase = root.network_passphrase;
  let asset = options.asset;
  if (!asset) {
    // Public: the stablecoin is known before any credential (an API key or a session) exists.
    const res = await doFetch(`${baseUrl}/v1/ledger`);
    const json = (await res.json().catch(() => null)) as { success?: boolean; data?: { asset: { code: string; issuer: string } } } | null;
    if (!res.ok || !json?.success || !json.data) throw new Error(`sandbox.createWallet: GET /v1/ledger answered ${res.status}`);
    asset = json.data.asset;
  }

  const keypair = Keypair.random();
  await horizon.friendbot(keypair.publicKey()).call();
  const account = await horizon.loadAccount(keypair.publicKey());
  const trust = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase })
    .addOperation(Operation.changeTrust({ asset: new Asset(asset.code, asset.issuer) }))
    .setTimeout(60)
    .build();
  trust.sign(keypair);
  await horizon.submitTransaction(trust);
  if (options.fund ?? true) await horizon.friendbot(keypair.publicKey()).call();

  const secretKey = keypair.secret();
  const wallet: SandboxWallet = {
    publicKey: keypair.publicKey(),
    secretKey,
    networkPassphrase,
    asset,
    horizonUrl,
    signXdr: (xdr) => signXdr(xdr, secretKey, networkPassphrase),
    signHash: (hashHex) => signHash(hashHex, secretKey),
  };
  if (options.link) {
    const challenge = await api<{ transaction: string }>('POST', '/api/me/ledger/challenge', { account: wallet.publicKey });
    await api('POST', '/api/me/ledger/link', { transaction: wallet.signXdr(challenge.transaction) });
  }
  return wallet;
};

export const sandbox = { createWallet };
