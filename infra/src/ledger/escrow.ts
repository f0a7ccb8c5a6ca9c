import { createHmac } from 'node:crypto';
import { Account, BASE_FEE, Keypair, Memo, Operation, StrKey, TransactionBuilder, type Horizon, type Transaction } from '@stellar/stellar-sdk';
import { formatAmount, parseAmount, ValidationError, type LedgerPayment, type ObservedDeposit } from '@cagnotte/domain';
import { describeDeposit, type DepositFacts } from './deposit-decoding';
import { ESCROW_SETUP_TIMEOUT_SECONDS, ESCROW_SIGNER_WEIGHT, ESCROW_THRESHOLD, depositTransaction, escrowSetupTransaction, settlementEffectsOf } from './escrow-transactions';
import { LedgerRejectedError, LedgerUnavailableError, type LedgerGateway, type Submitted } from './gateway';

/** The escrow account as the settlement needs it (settlement.ts); `exists` is false once it is merged. */
export interface EscrowState {
  exists: boolean;
  sequence: bigint;
  /** Its own stablecoin balance, stroops: paid in directly, never a deposit (deposits are claimable balances). */
  strayBalance: bigint;
  hasTrustline: boolean;
  signers: Array<{ key: string; type: string; weight: number }>;
  thresholds: { low: number; med: number; high: number };
}

/** Whether a transaction is on the ledger, and how it ended (a failed one consumed its sequence number all the same). */
export interface TransactionOutcome {
  hash: string;
  successful: boolean;
  ledger: number;
  closedAt: string;
}

/** The operation types that move the stablecoin from one account's balance to another's (Horizon's `type`). */
const PAYMENT_TYPES: ReadonlySet<string> = new Set(['payment', 'path_payment_strict_receive', 'path_payment_strict_send']);
/** Records per Horizon page: its largest. */
const PAGE = 200;

/** Accounts looked up at once by missingTrustlines: a few, to stay polite to a public Horizon. */
const LOOKUPS_AT_ONCE = 8;

export interface EscrowOpened {
  accountId: string;
  platformSigner: string;
  threshold: number;
  /** Null when the account already stood there with this layout (a retry after a crash). */
  setupTxHash: string | null;
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * The escrow side of the ledger: opening a pool's escrow account, the deposits buyers sign (claimable balances the
 * escrow may claim until `reclaimAfter`, the buyer from then on), their reclaim, what an escrow holds, and the
 * platform's own payments (listing refunds). The layout and every transaction are in docs/escrow.md.
 */
export class EscrowLedger {
  constructor(private readonly ledger: LedgerGateway) {}

  private get platform(): Keypair {
    return this.ledger.settings.platformKeypair;
  }

  get networkPassphrase(): string {
    return this.ledger.settings.networkPassphrase;
  }

  get asset() {
    return { code: this.ledger.settings.assetCode, issuer: this.ledger.settings.assetIssuer };
  }

  /**
   * The escrow account's key, derived from the platform's secret and the pool: a retry after a crash finds the same
   * account. It is used once, to set the account up, and is worthless after (master weight 0); never stored.
   */
  private escrowKeypair(poolId: string): Keypair {
    return Keypair.fromRawEd25519Seed(createHmac('sha256', this.platform.rawSecretKey()).update(`cagnotte:escrow:${poolId}`).digest());
  }

  escrowAccountOf(poolId: string): string {
    return this.escrowKeypair(poolId).publicKey();
  }

  /** The account's trustline to the stablecoin, code and issuer both. */
  private stablecoinLine(account: Horizon.AccountResponse) {
    return account.balances.find((b) => 'asset_code' in b && b.asset_code === this.asset.code && b.asset_issuer === this.asset.issuer) as Horizon.HorizonApi.BalanceLineAsset | undefined;
  }

  private hasLayout(account: Horizon.AccountResponse, organiser: string): boolean {
    const weight = (key: string) => account.signers.find((s) => s.key === key)?.weight ?? 0;
    const trusts = this.stablecoinLine(account) !== undefined;
    const t = account.thresholds;
    return (
      trusts &&
      weight(account.account_id) === 0 &&
      weight(organiser) === ESCROW_SIGNER_WEIGHT &&
      weight(this.platform.publicKey()) === ESCROW_SIGNER_WEIGHT &&
      account.signers.filter((s) => s.weight > 0).length === 2 &&
      t.low_threshold === ESCROW_THRESHOLD &&
      t.med_threshold === ESCROW_THRESHOLD &&
      t.high_threshold === ESCROW_THRESHOLD
    );
  }

  /** Opens (or finds, on a retry) the pool's escrow account: one transaction, the platform pays the reserve. */
  async openEscrow(input: { poolId: string; organiserAccount: string }): Promise<EscrowOpened> {
    const escrow = this.escrowKeypair(input.poolId);
    const answer = (setupTxHash: string | null): EscrowOpened => ({ accountId: escrow.publicKey(), platformSigner: this.platform.publicKey(), threshold: ESCROW_THRESHOLD, setupTxHash });
    const existing = await this.ledger.loadAccount(escrow.publicKey());
    if (existing) {
      if (this.hasLayout(existing, input.organiserAccount)) return answer(null);
      throw new Error(`escrow account ${escrow.publicKey()} exists with another layout`);
    }
    // Read before the platform's turn, to hold it no longer than needed; the turn comes long before this runs out.
    const maxTime = await this.ledger.validUntil(ESCROW_SETUP_TIMEOUT_SECONDS);
    try {
      const { hash } = await this.ledger.submitFrom(this.platform.publicKey(), async (platform) => {
        const tx = escrowSetupTransaction({
          platform,
          escrowAccount: escrow.publicKey(),
          organiserAccount: input.organiserAccount,
          asset: this.ledger.asset,
          networkPassphrase: this.ledger.settings.networkPassphrase,
          maxTime,
        });
        tx.sign(this.platform, escrow);
        return tx;
      });
      return answer(hash);
    } catch (e) {
      // Another attempt opened it first (op_already_exists): that account answers, if it has the layout.
      if (e instanceof LedgerRejectedError) {
        const now = await this.ledger.loadAccount(escrow.publicKey());
        if (now && this.hasLayout(now, input.organiserAccount)) return answer(null);
      }
      throw e;
    }
  }

  /**
   * The deposit a buyer signs: from their account, one claimable balance of exactly `amount`, claimable by the
   * escrow before `reclaimAfter` and by the buyer from then on, bound to the reservation by its memo, and valid
   * only until `validUntil` (the reservation's expiry: a deposit cannot land after it).
   */
  async buildDeposit(input: { source: string; escrowAccount: string; amount: string; memoHash: string; reclaimAfter: Date; validUntil: Date }) {
    const account = await this.ledger.loadAccount(input.source);
    if (!account) {
      throw new ValidationError({ ledgerAccount: [`${input.source} does not exist on the ledger yet: fund it first`] }, 'Your linked ledger account is not funded', 'ledger_account_not_found');
    }
    const tx = depositTransaction({ ...input, account, asset: this.ledger.asset, networkPassphrase: this.ledger.settings.networkPassphrase });
    return {
      xdr: tx.toXDR(),
      hash: Buffer.from(tx.hash()).toString('hex'),
      expiresAt: input.validUntil.toISOString(),
      balanceId: tx.getClaimableBalanceId(0),
      sequence: tx.sequence,
    };
  }

  /**
   * The buyer's reclaim: a claim of their deposit from their own account, valid from `reclaimAfter`. Built for the
   * account's next sequence (or the one after `afterSequence`, to hand it out with the deposit it follows).
   */
  async buildReclaim(input: { buyer: string; balanceId: string; reclaimAfter: string; afterSequence?: string }) {
    const account = await this.ledger.loadAccount(input.buyer);
    if (!account) throw new ValidationError({ ledgerAccount: [`${input.buyer} does not exist on the ledger`] }, 'Your linked ledger account is not on the ledger', 'ledger_account_not_found');
    // After the deposit it follows (not yet on the ledger), or after whatever the account did last.
    const after = input.afterSequence !== undefined && BigInt(input.afterSequence) > BigInt(account.sequence) ? input.afterSequence : account.sequence;
    const source = new Account(input.buyer, after);
    const tx = new TransactionBuilder(source, {
      fee: BASE_FEE,
      networkPassphrase: this.ledger.settings.networkPassphrase,
      timebounds: { minTime: unix(new Date(input.reclaimAfter)), maxTime: 0 },
    })
      .addOperation(Operation.claimClaimableBalance({ balanceId: input.balanceId }))
      .build();
    return { xdr: tx.toXDR(), hash: Buffer.from(tx.hash()).toString('hex'), validAfter: input.reclaimAfter, balanceId: input.balanceId };
  }

  /** What a transaction does, as far as a deposit is concerned. */
  describeDeposit(tx: Transaction, facts: DepositFacts): ObservedDeposit {
    return describeDeposit(tx, facts);
  }

  /** The deposit as recorded on the ledger, decoded; null while the ledger does not show it. */
  async observeDeposit(txHash: string): Promise<ObservedDeposit | null> {
    const found = await this.ledger.readTransaction(txHash);
    if (!found) return null;
    const { tx, record } = found;
    return this.describeDeposit(tx, { txHash: record.hash, ledger: Number(record.ledger_attr), successful: record.successful, closedAt: new Date(record.created_at).toISOString() });
  }

  /**
   * Every successful transaction of `source` bearing `memoHash` (a reservation's deposits, and anything forged with its
   * memo: the decider checks each), decoded, oldest first. Reads the account's history back to `since` (the
   * reservation was placed then: nothing with its memo can be older), a page of 200 at a time. An account the ledger
   * does not know has none.
   */
  async depositsBearing(input: { source: string; memoHash: string; since: Date }): Promise<ObservedDeposit[]> {
    const found: ObservedDeposit[] = [];
    let page;
    try {
      page = await this.ledger.server.transactions().forAccount(input.source).order('desc').limit(PAGE).call();
    } catch (e) {
      if ((e as { response?: { status?: number } }).response?.status === 404) return [];
      throw new LedgerUnavailableError(`the ledger did not list ${input.source}'s transactions: ${(e as Error).message}`);
    }
    for (;;) {
      for (const r of page.records) {
        if (Date.parse(r.created_at) < input.since.getTime()) return found.reverse();
        if (!r.successful || r.memo_type !== 'hash' || !r.memo || Buffer.from(r.memo, 'base64').toString('hex') !== input.memoHash) continue;
        const tx = this.ledger.parseEnvelope(r.envelope_xdr);
        if (tx) found.push(this.describeDeposit(tx, { txHash: r.hash, ledger: Number(r.ledger_attr), successful: r.successful, closedAt: new Date(r.created_at).toISOString() }));
      }
      if (page.records.length < PAGE) return found.reverse();
      page = await page.next();
    }
  }

  /** What the escrow holds: its own balance of the stablecoin plus every deposit it may claim. Exact strings. */
  async holdings(escrowAccount: string): Promise<{ balance: string; deposits: Array<{ balanceId: string; amount: string; sponsor: string | null }> }> {
    const account = await this.ledger.loadAccount(escrowAccount);
    const line = account ? this.stablecoinLine(account) : undefined;
    const deposits: Array<{ balanceId: string; amount: string; sponsor: string | null }> = [];
    const assetName = `${this.asset.code}:${this.asset.issuer}`;
    let page = await this.ledger.server.claimableBalances().claimant(escrowAccount).limit(PAGE).call();
    for (;;) {
      for (const r of page.records) if (r.asset === assetName) deposits.push({ balanceId: r.id, amount: r.amount, sponsor: r.sponsor ?? null });
      if (page.records.length < PAGE) break;
      page = await page.next();
    }
    return { balance: line?.balance ?? '0', deposits };
  }

  async escrowState(accountId: string): Promise<EscrowState> {
    const account = await this.ledger.loadAccount(accountId);
    if (!account) return { exists: false, sequence: 0n, strayBalance: 0n, hasTrustline: false, signers: [], thresholds: { low: 0, med: 0, high: 0 } };
    const line = this.stablecoinLine(account);
    const t = account.thresholds;
    return {
      exists: true,
      sequence: BigInt(account.sequence),
      strayBalance: line ? parseAmount(line.balance) : 0n,
      hasTrustline: line !== undefined,
      signers: account.signers.map((s) => ({ key: s.key, type: s.type, weight: s.weight })),
      thresholds: { low: t.low_threshold, med: t.med_threshold, high: t.high_threshold },
    };
  }

  /**
   * The accounts a payment of the stablecoin would fail to reach once applied (no account, no trustline to the
   * stablecoin's code and issuer, or one not authorised), which would burn a release's sequence number.
   */
  async missingTrustlines(accounts: string[]): Promise<string[]> {
    const unique = [...new Set(accounts)];
    const missing: string[] = [];
    for (let i = 0; i < unique.length; i += LOOKUPS_AT_ONCE) {
      const batch = unique.slice(i, i + LOOKUPS_AT_ONCE);
      const found = await Promise.all(batch.map((id) => (StrKey.isValidEd25519PublicKey(id) ? this.ledger.loadAccount(id) : null)));
      batch.forEach((id, j) => {
        // The issuer takes its own asset back without a trustline.
        if (id === this.asset.issuer && found[j]) return;
        const line = found[j] ? this.stablecoinLine(found[j]!) : undefined;
        if (!line?.is_authorized) missing.push(id);
      });
    }
    return missing;
  }

  /** Whether a claimable balance is still there (not yet claimed by the escrow nor reclaimed by its buyer). */
  async balanceExists(balanceId: string): Promise<boolean> {
    return (await this.ledger.loadClaimableBalance(balanceId)) !== null;
  }

  /**
   * What a settlement transaction did on the ledger, for reconciliation: whether it succeeded, the stablecoin payments it
   * made (per operation) and the claimable balances it claimed. Null while the ledger does not show it.
   */
  async settlementEffects(hash: string): Promise<{ successful: boolean; payments: Array<{ destination: string; amount: string }>; claimed: string[] } | null> {
    const found = await this.ledger.readTransaction(hash);
    if (!found) return null;
    return settlementEffectsOf(found.tx, found.record.successful, this.asset);
  }

  /**
   * Every successful payment of the stablecoin into or out of the escrow account (payments and path payments), oldest
   * first, from its history on the ledger (kept after a merge): what was paid straight into it (stray payments, never
   * deposits, which are claimable balances) and everything it paid out, its locks' included.
   */
  async escrowPayments(escrowAccount: string): Promise<LedgerPayment[]> {
    const out: LedgerPayment[] = [];
    let page = await this.ledger.server.payments().forAccount(escrowAccount).order('asc').limit(PAGE).call();
    for (;;) {
      for (const record of page.records) {
        const r = record as unknown as Record<string, unknown>;
        if (!PAYMENT_TYPES.has(String(r.type)) || r.transaction_successful === false) continue;
        if (r.asset_type === 'native' || r.asset_code !== this.asset.code || r.asset_issuer !== this.asset.issuer) continue;
        out.push({ operationId: String(r.id), txHash: String(r.transaction_hash), from: String(r.from), to: String(r.to), amount: String(r.amount), at: String(r.created_at) });
      }
      if (page.records.length < PAGE) break;
      page = await page.next();
    }
    return out;
  }

  /**
   * What the ledger shows of an escrow for reconciliation (read-models/src/escrow/reconcile.ts): whether the account
   * exists, its own stablecoin balance, the deposits it may claim, the effects of the named transactions, and every
   * payment of the stablecoin it ever made (to compare what the platform received with its fee lines).
   */
  async reconciliationFacts(escrowAccount: string, txHashes: string[]) {
    const [state, holdings, payments] = await Promise.all([this.escrowState(escrowAccount), this.holdings(escrowAccount), this.escrowPayments(escrowAccount)]);
    const transactions: Record<string, Awaited<ReturnType<EscrowLedger['settlementEffects']>>> = {};
    for (const hash of txHashes) transactions[hash] = await this.settlementEffects(hash);
    return {
      accountExists: state.exists,
      balance: formatAmount(state.strayBalance),
      deposits: holdings.deposits.map((d) => ({ balanceId: d.balanceId, amount: d.amount })),
      transactions,
      platform: this.ledger.settings.platformAccount,
      paidOut: payments.filter((p) => p.from === escrowAccount).map((p) => ({ destination: p.to, amount: p.amount, txHash: p.txHash })),
    };
  }

  /** A copy of `tx` with the platform's signature added. */
  platformSign(tx: Transaction): Transaction {
    const copy = TransactionBuilder.fromXDR(tx.toXDR(), this.networkPassphrase) as Transaction;
    copy.sign(this.platform);
    return copy;
  }

  /** Submits a signed transaction: its hash and ledger, or LedgerRejectedError (with core's result codes) / LedgerUnavailableError. */
  submitSigned(tx: Transaction): Promise<{ hash: string; ledger: number }> {
    return this.ledger.submit(tx);
  }

  /** Null while the ledger does not show the transaction. */
  async transactionOutcome(hash: string): Promise<TransactionOutcome | null> {
    const found = await this.ledger.readTransaction(hash);
    if (!found) return null;
    const { record } = found;
    return { hash: record.hash, successful: record.successful, ledger: Number(record.ledger_attr), closedAt: new Date(record.created_at).toISOString() };
  }

  /**
   * A payment of the stablecoin from the platform, bound to `memoHash`. Paying twice is prevented by the memo: a
   * payment with it to that destination among the platform's recent transactions answers instead. That look runs in
   * the platform's turn, after its sequence was read: an earlier attempt that lands later has that same number, so
   * at most one of the two applies.
   */
  async payFromPlatform(input: { destination: string; amount: string; memoHash: string }): Promise<Submitted> {
    const maxTime = await this.ledger.validUntil(300);
    return this.ledger.submitFrom(this.platform.publicKey(), async (account) => {
      const made = await this.paymentMade(input);
      if (made) return made;
      const tx = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: this.ledger.settings.networkPassphrase, timebounds: { minTime: 0, maxTime } })
        .addOperation(Operation.payment({ destination: input.destination, asset: this.ledger.asset, amount: input.amount }))
        .addMemo(Memo.hash(input.memoHash))
        .build();
      tx.sign(this.platform);
      return tx;
    });
  }

  /** The platform's successful payment to `destination` bound to `memoHash`, among its 200 latest transactions. */
  private async paymentMade(input: { destination: string; memoHash: string }): Promise<Submitted | null> {
    const recent = await this.ledger.server.transactions().forAccount(this.platform.publicKey()).order('desc').limit(PAGE).call();
    for (const r of recent.records) {
      if (r.memo_type !== 'hash' || !r.memo || Buffer.from(r.memo, 'base64').toString('hex') !== input.memoHash || !r.successful) continue;
      const tx = this.ledger.parseEnvelope(r.envelope_xdr);
      const op = tx?.operations[0];
      if (op?.type === 'payment' && op.destination === input.destination) return { hash: r.hash, ledger: Number(r.ledger_attr) };
    }
    return null;
  }
}

export const isEscrowAccountId = (s: string): boolean => StrKey.isValidEd25519PublicKey(s);
