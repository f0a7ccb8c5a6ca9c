import { createHash } from 'node:crypto';
import { Asset, BASE_FEE, FeeBumpTransaction, Horizon, Keypair, Memo, Operation, StrKey, Transaction, TransactionBuilder, WebAuth, xdr } from '@stellar/stellar-sdk';
import { ValidationError, type ObservedPayment } from '@cagnotte/domain';
import { networkOf, type LedgerNetwork } from './network';
import { LedgerRejectedError, LedgerUnavailableError } from './ledger-errors';
import { InProcessSourceLock, type SourceAccountLock } from './source-lock';
import type { LedgerCall } from '../operational-metrics';

export interface LedgerSettings {
  /** Resolved lazily: in sandbox mode it is only known once the HTTP server listens. */
  horizonUrl: () => string;
  networkPassphrase: string;
  assetCode: string;
  assetIssuer: string;
  platformAccount: string;
  /** Signs SEP-10 style challenges. */
  signingKeypair: Keypair;
  /** The platform account's key: funds escrow accounts, cosigns them (weight 1 of 2), pays listing refunds. */
  platformKeypair: Keypair;
  /** The name challenges carry as SEP-10 home domain and web-auth domain. */
  homeDomain: string;
  allowHttp: boolean;
  /** Told of every Horizon call (its latency and outcome): the process's metrics. */
  onCall?: (call: LedgerCall) => void;
  /**
   * The service's clock: time bounds of what the platform builds follow it (the sandbox network's clock may run
   * ahead of this machine's, and a bound by the machine's would be too late there). The system clock by default.
   */
  clock?: () => Date;
}

export { LedgerRejectedError, LedgerUnavailableError };

/** A transaction the ledger has applied: its hash and ledger. */
export interface Submitted {
  hash: string;
  ledger: number;
}

const CHALLENGE_TTL_SECONDS = 300;
const PAYMENT_TTL_SECONDS = 900;
/** Builds per submitFrom when the account moved outside its lock (tx_bad_seq). */
const SUBMIT_ATTEMPTS = 3;

/** The MEMO_HASH that binds a fee payment to one grant: a payment can settle that grant and no other. */
export const grantMemoHash = (grantId: string): string => createHash('sha256').update(`cagnotte:organiser-grant:${grantId}`).digest('hex');

/** The MEMO_HASH that binds a payment to one payment request (docs/v1/requests.md): it pays that request and no other. */
export const requestMemoHash = (requestId: string): string => createHash('sha256').update(`cagnotte:payment-request:${requestId}`).digest('hex');

/** A transaction's MEMO_HASH in hex, or null when it carries another memo (or none). */
export const memoHashOf = (tx: Transaction): string | null =>
  tx.memo.type === 'hash' && tx.memo.value ? Buffer.from(tx.memo.value as Buffer).toString('hex') : null;

type HorizonErrorResponse = { status?: number; data?: { extras?: { result_codes?: { transaction?: string; operations?: string[] } } } };
const responseOf = (e: unknown): HorizonErrorResponse | undefined => (e as { response?: HorizonErrorResponse } | null)?.response;

/** A Horizon path as a bounded label: its ids (account ids, hashes, numbers) become `:id`, after the server's own path. */
export const horizonEndpointOf = (url: string, base: string): string => {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return 'unknown';
  }
  const prefix = new URL(base).pathname.replace(/\/$/, '');
  if (prefix && path.startsWith(prefix)) path = path.slice(prefix.length);
  const segments = path.split('/').filter(Boolean).slice(0, 4);
  return segments.map((s) => (/^[a-z_]{1,40}$/.test(s) ? s : ':id')).join('/') || 'root';
};

/**
 * Times every request of a Horizon server's HTTP client (every verb goes through its `makeRequest`), whoever builds
 * the call: the gateway's methods and the escrow and anchor code reading `gateway.server`.
 */
const timedServer = (server: Horizon.Server, onCall: LedgerSettings['onCall']): Horizon.Server => {
  if (!onCall) return server;
  const http = server.httpClient as unknown as { makeRequest(config: { url?: string; method?: string }): Promise<unknown> };
  const makeRequest = http.makeRequest.bind(http);
  const base = server.serverURL.toString();
  http.makeRequest = (config) => {
    const started = performance.now();
    const report = (outcome: string) =>
      onCall({ method: (config.method ?? 'get').toUpperCase(), endpoint: horizonEndpointOf(config.url ?? '', base), outcome, seconds: (performance.now() - started) / 1000 });
    return makeRequest(config).then(
      (res) => {
        report('ok');
        return res;
      },
      (e: unknown) => {
        const status = responseOf(e)?.status;
        report(!status ? 'network_error' : status === 404 ? 'not_found' : status < 500 ? 'client_error' : 'server_error');
        throw e;
      },
    );
  };
  return server;
};

/**
 * The one client of the Stellar ledger: any Horizon (the sandbox network, testnet, public) through the
 * SDK's Horizon.Server. It builds the unsigned payments users sign, reads transactions back and decodes
 * what they really did, and issues and verifies SEP-10 style challenges.
 */
export class LedgerGateway {
  private cached: { url: string; server: Horizon.Server } | null = null;
  readonly asset: Asset;

  /**
   * @param sourceLock turns per source account for submitFrom: a PostgresSourceLock in a deployment (every process);
   * the in-process default only serves a process that signs alone (tests, tools).
   */
  constructor(
    readonly settings: LedgerSettings,
    readonly sourceLock: SourceAccountLock = new InProcessSourceLock(),
  ) {
    this.asset = new Asset(settings.assetCode, settings.assetIssuer);
  }

  /** The time by the service's clock. */
  now(): Date {
    return this.settings.clock ? this.settings.clock() : new Date();
  }

  get server(): Horizon.Server {
    const url = this.settings.horizonUrl();
    if (this.cached?.url !== url) this.cached = { url, server: timedServer(new Horizon.Server(url, { allowHttp: this.settings.allowHttp }), this.settings.onCall) };
    return this.cached.server;
  }

  get network(): LedgerNetwork {
    return networkOf(this.settings.networkPassphrase);
  }

  async loadAccount(accountId: string): Promise<Horizon.AccountResponse | null> {
    try {
      return await this.server.loadAccount(accountId);
    } catch (e) {
      if (responseOf(e)?.status === 404) return null;
      throw this.unavailable(e);
    }
  }

  /** A claimable balance as Horizon shows it; null once claimed (or never created). */
  async loadClaimableBalance(balanceId: string): Promise<Horizon.ServerApi.ClaimableBalanceRecord | null> {
    try {
      return await this.server.claimableBalances().claimableBalance(balanceId).call();
    } catch (e) {
      if (responseOf(e)?.status === 404) return null;
      throw this.unavailable(e);
    }
  }

  /**
   * A time bound `seconds` from now by the ledger's clock (its last closed ledger), or by this machine's when that is
   * later: a transaction the platform submits at once must not be refused as too late because the two clocks differ.
   */
  async validUntil(seconds: number): Promise<number> {
    const local = Math.floor(this.now().getTime() / 1000);
    const page = await this.server
      .ledgers()
      .order('desc')
      .limit(1)
      .call()
      .catch((e: unknown) => {
        throw this.unavailable(e);
      });
    const closed = page.records[0] ? Math.floor(Date.parse(page.records[0].closed_at) / 1000) : 0;
    return Math.max(local, closed) + seconds;
  }

  /** An unsigned payment of `amount` of the stablecoin from `source` to the platform, bound to `memoHash`. */
  buildFeePayment(source: string, amount: string, memoHash: string): Promise<{ xdr: string; hash: string; expiresAt: string }> {
    return this.buildPayment({ source, destination: this.settings.platformAccount, amount, memo: Memo.hash(memoHash) });
  }

  /**
   * An unsigned payment of `amount` of the stablecoin from `source` (its next sequence) to `destination`, with `memo`,
   * valid PAYMENT_TTL_SECONDS: the one builder of the payments users sign (fees, /v1 transfers).
   */
  async buildPayment(input: { source: string; destination: string; amount: string; memo: Memo }): Promise<{ xdr: string; hash: string; expiresAt: string }> {
    const { source, destination, amount, memo } = input;
    const account = await this.loadAccount(source);
    if (!account) {
      throw new ValidationError(
        { ledgerAccount: [`${source} does not exist on the ledger yet: fund it first`] },
        'Your linked ledger account is not funded',
        'ledger_account_not_found',
      );
    }
    const maxTime = Math.floor(this.now().getTime() / 1000) + PAYMENT_TTL_SECONDS;
    const tx = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: this.settings.networkPassphrase, timebounds: { minTime: 0, maxTime } })
      .addOperation(Operation.payment({ destination, asset: this.asset, amount }))
      .addMemo(memo)
      .build();
    return { xdr: tx.toXDR(), hash: Buffer.from(tx.hash()).toString('hex'), expiresAt: new Date(maxTime * 1000).toISOString() };
  }

  /** Decodes a signed envelope for this network (a fee bump answers its inner transaction); null when it is not one. */
  parseEnvelope(xdr: string): Transaction | null {
    try {
      const tx = TransactionBuilder.fromXDR(xdr, this.settings.networkPassphrase);
      return tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx;
    } catch {
      return null;
    }
  }

  /** What a transaction does, as far as a fee payment is concerned. */
  describePayment(tx: Transaction, facts: { txHash: string; ledger: number; successful: boolean }): ObservedPayment {
    const payments = tx.operations.filter((op) => op.type === 'payment' || op.type === 'pathPaymentStrictReceive' || op.type === 'pathPaymentStrictSend');
    const first = tx.operations.find((op): op is Operation.Payment => op.type === 'payment');
    const memoHash = memoHashOf(tx);
    return {
      txHash: facts.txHash,
      ledger: facts.ledger,
      successful: facts.successful,
      from: first?.source ?? tx.source,
      to: first?.destination ?? '',
      assetCode: first ? (first.asset.isNative() ? 'XLM' : first.asset.getCode()) : null,
      assetIssuer: first && !first.asset.isNative() ? (first.asset.getIssuer() ?? null) : null,
      amount: first?.amount ?? '0',
      memoHash,
      paymentCount: payments.length,
    };
  }

  /** A transaction as recorded on the ledger with its decoded envelope; null while the ledger does not show it. */
  async readTransaction(txHash: string): Promise<{ tx: Transaction; record: Horizon.ServerApi.TransactionRecord } | null> {
    let record: Horizon.ServerApi.TransactionRecord;
    try {
      record = await this.server.transactions().transaction(txHash).call();
    } catch (e) {
      if (responseOf(e)?.status === 404) return null;
      throw this.unavailable(e);
    }
    const tx = this.parseEnvelope(record.envelope_xdr);
    if (!tx) throw new LedgerUnavailableError('the ledger returned an envelope for another network');
    return { tx, record };
  }

  /** The transaction as recorded on the ledger, decoded; null while the ledger does not show it. */
  async observePayment(txHash: string): Promise<ObservedPayment | null> {
    const found = await this.readTransaction(txHash);
    if (!found) return null;
    const { tx, record } = found;
    return this.describePayment(tx, { txHash: record.hash, ledger: Number(record.ledger_attr), successful: record.successful });
  }

  /** Submits a signed envelope; answers the hash and ledger, or throws LedgerRejectedError / LedgerUnavailableError. */
  async submit(tx: Transaction): Promise<Submitted> {
    try {
      const res = await this.server.submitTransaction(tx, { skipMemoRequiredCheck: true });
      return { hash: res.hash, ledger: Number(res.ledger) };
    } catch (e) {
      const r = responseOf(e);
      if (r?.status && r.status >= 400 && r.status < 500) throw new LedgerRejectedError(r.status, r.data?.extras?.result_codes ?? {});
      throw this.unavailable(e);
    }
  }

  /**
   * A transaction of an account this service signs for (the platform), in turn with every other transaction of that
   * account in every process (docs/ledger-sequence.md). Holding the account's lock: its sequence is read from the
   * ledger, `build` makes and signs the transaction on it (bumping it, as the SDK's builder does), or answers without
   * one (what it was asked is already done), and the transaction is submitted; the lock goes once the ledger answered.
   *
   * No number is kept between turns, so none can be handed out twice: a refused transaction consumed nothing, and one
   * whose outcome is unknown (a timeout: it may still land) leaves the next holder to read whatever the ledger shows
   * then; if it lands later, it and the next holder's share one number and only one applies. tx_bad_seq under the
   * lock means the account moved outside it (another deployment, an operator, a timed-out transaction that landed
   * since): `build` runs again on a fresh read, up to SUBMIT_ATTEMPTS times, so it must check again what it checks.
   */
  submitFrom(accountId: string, build: (source: Horizon.AccountResponse) => Promise<Transaction | Submitted>): Promise<Submitted> {
    return this.sourceLock.hold(accountId, async () => {
      for (let attempt = 1; ; attempt++) {
        const source = await this.loadAccount(accountId);
        if (!source) throw new LedgerUnavailableError(`the account ${accountId} does not exist on the ledger`);
        const built = await build(source);
        if (!(built instanceof Transaction)) return built;
        try {
          return await this.submit(built);
        } catch (e) {
          if (e instanceof LedgerRejectedError && e.resultCodes.transaction === 'tx_bad_seq' && attempt < SUBMIT_ATTEMPTS) continue;
          if (e instanceof LedgerUnavailableError) return this.landedAfterAll(built, e);
          throw e;
        }
      }
    });
  }

  /** After a submission that did not answer: the transaction if the ledger shows it applied, else the same error. */
  private async landedAfterAll(tx: Transaction, error: LedgerUnavailableError): Promise<Submitted> {
    const found = await this.readTransaction(Buffer.from(tx.hash()).toString('hex')).catch(() => null);
    if (found?.record.successful) return { hash: found.record.hash, ledger: Number(found.record.ledger_attr) };
    throw error;
  }

  /** A SEP-10 shaped challenge for `account`: server-signed, 5 minutes, random nonce in a manageData op. */
  challenge(account: string): { xdr: string; hash: string; expiresAt: string } {
    const { signingKeypair, homeDomain, networkPassphrase } = this.settings;
    const xdr = WebAuth.buildChallengeTx(signingKeypair, account, homeDomain, CHALLENGE_TTL_SECONDS, networkPassphrase, homeDomain);
    const tx = new Transaction(xdr, networkPassphrase);
    return { xdr, hash: Buffer.from(tx.hash()).toString('hex'), expiresAt: new Date(Number(tx.timeBounds!.maxTime) * 1000).toISOString() };
  }

  /**
   * Verifies a signed challenge the SEP-10 way: our signature, the time bounds and the nonce op, then the
   * client's signatures: the medium threshold of the account's signers when it exists, its master key when not.
   */
  async verifyChallenge(xdr: string): Promise<{ account: string; hash: string }> {
    const serverId = this.settings.signingKeypair.publicKey();
    const passphrase = this.settings.networkPassphrase;
    const home = this.settings.homeDomain;
    let account: string;
    let hash: string;
    try {
      const read = WebAuth.readChallengeTx(xdr, serverId, passphrase, home, home);
      account = read.clientAccountID;
      hash = Buffer.from(read.tx.hash()).toString('hex');
    } catch (e) {
      throw new ValidationError({ transaction: [(e as Error).message] }, 'Invalid challenge transaction', 'invalid_challenge');
    }
    if (!StrKey.isValidEd25519PublicKey(account)) {
      throw new ValidationError({ transaction: ['the challenge must name a G… account'] }, 'Invalid challenge transaction', 'invalid_challenge');
    }
    const onLedger = await this.loadAccount(account);
    try {
      if (onLedger) {
        const signers = onLedger.signers.map((s) => ({ key: s.key, weight: s.weight, type: s.type }));
        WebAuth.verifyChallengeTxThreshold(xdr, serverId, passphrase, onLedger.thresholds.med_threshold, signers, home, home);
      } else {
        WebAuth.verifyChallengeTxSigners(xdr, serverId, passphrase, [account], home, home);
      }
    } catch (e) {
      throw new ValidationError({ transaction: [(e as Error).message] }, 'The challenge is not signed by the account', 'challenge_not_signed');
    }
    return { account, hash };
  }

  private unavailable(e: unknown): LedgerUnavailableError {
    const status = responseOf(e)?.status;
    return new LedgerUnavailableError(`the ledger (Horizon) is unavailable${status ? ` (HTTP ${status})` : ''}: ${(e as Error | null)?.message ?? String(e)}`);
  }
}

export const isStellarAccountId = (s: string): boolean => StrKey.isValidEd25519PublicKey(s);

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '');

/**
 * A transaction result (base64 XDR, Horizon's `result_xdr`) as Horizon's result codes: the transaction's
 * (`tx_failed`), then each payment operation's (`op_underfunded`, `op_no_trust`…). Best effort: ['tx_failed'] when
 * it cannot be read.
 */
export const paymentResultCodesOf = (resultXdr: string): string[] => {
  type Wire = { result: { type: string; results?: Array<{ type: string; tr?: { type: string; paymentResult?: { type: string } } }> } };
  try {
    const { result } = xdr.TransactionResult.fromXDR(resultXdr, 'base64') as unknown as Wire;
    const codes = [snake(result.type)];
    for (const op of result.results ?? []) {
      const inner = op.tr?.paymentResult?.type;
      codes.push(inner ? `op_${snake(inner.replace(/^payment/, ''))}` : op.type === 'opInner' ? 'op_failed' : snake(op.type));
    }
    return codes;
  } catch {
    return ['tx_failed'];
  }
};
