/**
 * The sandbox Stellar network: one PostgreSQL-backed ledger per passphrase. Submissions are serialised with a
 * transaction-scoped advisory lock; each applied transaction closes a ledger of its own. Genesis and friendbot
 * go through the same engine with real signed transactions from the derived root, issuer and platform keys.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { Account, Asset, Operation, StrKey, TimeoutInfinite, TransactionBuilder, type Keypair, type xdr } from '@stellar/stellar-sdk';
import { formatAmount, STROOPS_PER_UNIT } from './amounts';
import { resultCodes, transactionResultXdr, type ResultCodes, type TxCode } from './codes';
import {
  BASE_FEE,
  BASE_RESERVE,
  newAccount,
  parseEnvelope,
  processTransaction,
  touchedAccounts,
  touchedBalances,
  type AccountsState,
  type LedgerContext,
} from './engine';
import { sandboxKeys, type SandboxKeys } from './keys';
import {
  accountRecord,
  badRequestProblem,
  balancePage,
  claimableBalanceRecord,
  feeStatsRecord,
  isoSeconds,
  ledgerRecord,
  malformedProblem,
  operationRows,
  page,
  rootRecord,
  toid,
  transactionCore,
  transactionFailedProblem,
  withOperationLinks,
  withTransactionLinks,
  type HorizonProblem,
  type Json,
  type LedgerRow,
  type PageQuery,
} from './records';
import {
  addClockOffset,
  clockOffset,
  listBalances,
  loadBalances,
  writeBalances,
  type BalancePageQuery,
  headLedger,
  insertLedger,
  insertTransaction,
  ledgerBySequence,
  listLedgers,
  listOperations,
  listTransactions,
  loadAccounts,
  operationById,
  transactionByHash,
  writeAccounts,
} from './store';

export interface SandboxLedgerOptions {
  passphrase: string;
  /** The stablecoin's code, e.g. 'EURC'; issued by sandboxKeys(passphrase).issuer. */
  assetCode: string;
  /** The clock ledgers close by; defaults to the system clock. advanceTime() adds a persisted offset to it. */
  now?: () => Date;
}

export type SubmitResult =
  | { ok: true; status: 200; hash: string; ledger: number; record: Json }
  | { ok: false; status: 400; hash: string | null; ledger: number | null; resultCodes: ResultCodes | null; problem: HorizonProblem };

/** 100 billion XLM, Stellar's genesis supply. */
export const GENESIS_SUPPLY = 100_000_000_000n * STROOPS_PER_UNIT;
export const FRIENDBOT_STARTING_BALANCE = 10_000n * STROOPS_PER_UNIT;
export const FRIENDBOT_STABLECOIN_AMOUNT = 1_000n * STROOPS_PER_UNIT;
/** The most one friendbot call pays of the stablecoin (`amount`): 1,000,000. */
export const FRIENDBOT_MAX_STABLECOIN = 1_000_000n * STROOPS_PER_UNIT;
const GENESIS_ACCOUNT_BALANCE = 10_000n * STROOPS_PER_UNIT;
/** pg_advisory_xact_lock(class, network id): one ledger closes at a time per network. */
const LOCK_CLASS = 0x53424c47; // 'SBLG'

interface Head {
  network: number;
  head: LedgerRow;
  /** The network's clock offset (advanceTime), seconds. */
  offset: bigint;
}

export class SandboxLedger {
  readonly passphrase: string;
  readonly assetCode: string;
  readonly keys: SandboxKeys;
  private readonly now: () => Date;
  private networkId: Promise<number> | null = null;
  private genesis: Promise<void> | null = null;

  constructor(
    private readonly knex: Knex,
    options: SandboxLedgerOptions,
  ) {
    if (!/^[A-Za-z0-9]{1,12}$/.test(options.assetCode)) throw new Error(`invalid asset code ${options.assetCode}`);
    this.passphrase = options.passphrase;
    this.assetCode = options.assetCode;
    this.keys = sandboxKeys(options.passphrase);
    this.now = options.now ?? (() => new Date());
  }

  /** The stablecoin (assetCode issued by the sandbox issuer). */
  get asset(): Asset {
    return new Asset(this.assetCode, this.keys.issuer.publicKey());
  }

  // ---- lifecycle ----------------------------------------------------------------------------------------

  /**
   * Idempotent and safe to run from several processes at once: ledger 1 holds the root account with the whole
   * supply; then one transaction signed by root (and the platform) creates the issuer and the platform accounts
   * and the platform's trustline to the stablecoin, each only if missing.
   */
  ensureGenesis(): Promise<void> {
    this.genesis ??= this.runGenesis().catch((e: unknown) => {
      this.genesis = null;
      throw e;
    });
    return this.genesis;
  }

  private network(): Promise<number> {
    this.networkId ??= (async () => {
      await this.knex.raw('INSERT INTO sandbox_ledger_networks (passphrase) VALUES (?) ON CONFLICT (passphrase) DO NOTHING', [this.passphrase]);
      const row = await this.knex('sandbox_ledger_networks').where({ passphrase: this.passphrase }).first('id');
      return Number(row.id);
    })().catch((e: unknown) => {
      this.networkId = null;
      throw e;
    });
    return this.networkId;
  }

  private async runGenesis(): Promise<void> {
    const { root, issuer, platform } = this.keys;
    const outcome = await this.locked(async (trx, ctx) => {
      const accounts = await loadAccounts(trx, ctx.network, [root.publicKey(), issuer.publicKey(), platform.publicKey()]);
      const rootAcc = accounts.get(root.publicKey());
      if (!rootAcc) throw new Error('sandbox ledger: the root account is missing');
      const ops: xdr.Operation[] = [];
      if (!accounts.get(issuer.publicKey())) ops.push(Operation.createAccount({ destination: issuer.publicKey(), startingBalance: formatAmount(GENESIS_ACCOUNT_BALANCE) }));
      if (!accounts.get(platform.publicKey())) ops.push(Operation.createAccount({ destination: platform.publicKey(), startingBalance: formatAmount(GENESIS_ACCOUNT_BALANCE) }));
      const platformAcc = accounts.get(platform.publicKey());
      const trusts = platformAcc?.trustlines.some((t) => t.code === this.assetCode && t.issuer === issuer.publicKey()) ?? false;
      if (!trusts) ops.push(Operation.changeTrust({ asset: this.asset, source: platform.publicKey() }));
      if (ops.length === 0) return null;
      const signers = trusts ? [root] : [root, platform];
      const envelope = this.build(root.publicKey(), rootAcc.seqNum, ops, signers);
      return this.applyLocked(trx, ctx, envelope, '');
    });
    if (outcome && !outcome.ok) throw new Error(`sandbox ledger genesis failed: ${JSON.stringify(outcome.resultCodes)}`);
  }

  /** Runs `fn` holding the network's ledger lock, with ledger 1 created if needed. */
  private async locked<T>(fn: (trx: Knex.Transaction, ctx: Head) => Promise<T>): Promise<T> {
    const network = await this.network();
    return this.knex.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [LOCK_CLASS, network]);
      const offset = await clockOffset(trx, network);
      let head = await headLedger(trx, network);
      if (!head) {
        const closedAt = this.closeTime(null, offset);
        head = {
          sequence: 1,
          hash: createHash('sha256').update(`${this.passphrase}|genesis`).digest('hex'),
          prevHash: null,
          closedAt,
          successfulTransactionCount: 0,
          failedTransactionCount: 0,
          operationCount: 0,
          txSetOperationCount: 0,
          totalCoins: GENESIS_SUPPLY,
          feePool: 0n,
          baseFee: BASE_FEE,
          baseReserve: BASE_RESERVE,
        };
        await insertLedger(trx, network, head);
        const rootAcc = { ...newAccount(this.keys.root.publicKey(), GENESIS_SUPPLY, 1), seqNum: 0n };
        await writeAccounts(trx, network, new Map([[rootAcc.id, null]]), new Map([[rootAcc.id, rootAcc]]), 1);
      }
      return fn(trx, { network, head, offset });
    });
  }

  /** A ledger's close time: the clock (whole seconds) plus the network's offset, never before the previous one. */
  private closeTime(previous: Date | null, offset: bigint): Date {
    const now = new Date((Math.floor(this.now().getTime() / 1000) + Number(offset)) * 1000);
    return previous && previous > now ? previous : now;
  }

  // ---- the sandbox clock (sandbox only: there is no such thing on a real network) ---------------------------

  /**
   * Moves this network's clock forward by `seconds` (a positive integer), for every client of the network and
   * for good: the offset is persisted and only grows, so close times stay monotonic. Time bounds and claim
   * predicates are checked against the close time of the ledger a transaction would close, which is now the
   * clock plus the offset. Answers the network's time afterwards.
   */
  async advanceTime(seconds: number): Promise<Date> {
    if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new Error(`advanceTime needs a positive whole number of seconds, got ${seconds}`);
    await this.ensureGenesis();
    const network = await this.network();
    const offset = await this.knex.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [LOCK_CLASS, network]);
      return addClockOffset(trx, network, BigInt(seconds));
    });
    return this.closeTime(null, offset);
  }

  /** The network's clock offset (what advanceTime added so far), seconds: one cheap read, for clocks that follow the network's. */
  async clockOffsetSeconds(): Promise<number> {
    return Number(await clockOffset(this.knex, await this.network()));
  }

  /** The network's time now (clock plus offset, whole seconds): the close time a ledger closing now would get at least. */
  async networkTime(): Promise<Date> {
    const { network } = await this.readContext();
    return this.closeTime(null, await clockOffset(this.knex, network));
  }

  private build(source: string, seqNum: bigint, ops: xdr.Operation[], signers: Keypair[]): string {
    const tx = new TransactionBuilder(new Account(source, seqNum.toString()), { fee: (BASE_FEE * BigInt(ops.length)).toString(), networkPassphrase: this.passphrase });
    for (const op of ops) tx.addOperation(op);
    const built = tx.setTimeout(TimeoutInfinite).build();
    for (const kp of signers) built.sign(kp);
    return built.toEnvelope().toXDR('base64');
  }

  // ---- submission -------------------------------------------------------------------------------------

  /**
   * Submits a base64 TransactionEnvelope as Horizon's POST /transactions: a transaction included in a ledger
   * answers its record (200) or, when its operations failed, a transaction_failed problem with tx_failed; a
   * rejected one answers transaction_failed with its code and changes nothing; a hash already in a ledger
   * answers what it answered then (Horizon finds the result in its database before submitting).
   */
  async submit(envelopeXdr: string, options: { baseUrl?: string } = {}): Promise<SubmitResult> {
    await this.ensureGenesis();
    return this.locked((trx, ctx) => this.applyLocked(trx, ctx, envelopeXdr, options.baseUrl ?? ''));
  }

  private async applyLocked(trx: Knex.Transaction, ctx: Head, envelopeXdr: string, base: string): Promise<SubmitResult> {
    const env = parseEnvelope(envelopeXdr, this.passphrase);
    if (!env) return { ok: false, status: 400, hash: null, ledger: null, resultCodes: null, problem: malformedProblem(envelopeXdr) };

    const existing = await transactionByHash(trx, ctx.network, env.hashHex);
    if (existing) return this.storedOutcome(existing.record, existing.resultCodes, base);

    const closedAt = this.closeTime(ctx.head.closedAt, ctx.offset);
    const lctx: LedgerContext = { ledgerSeq: ctx.head.sequence + 1, closeTime: BigInt(Math.floor(closedAt.getTime() / 1000)), baseFee: ctx.head.baseFee, baseReserve: ctx.head.baseReserve };
    const balancesBefore = await loadBalances(trx, ctx.network, touchedBalances(env));
    const before: AccountsState = await loadAccounts(trx, ctx.network, touchedAccounts(env, balancesBefore));
    const verdict = processTransaction(env, before, lctx, balancesBefore);

    if (verdict.kind === 'rejected') {
      const resultXdr = transactionResultXdr(verdict.feeCharged, verdict.txCode, verdict.ops);
      const codes = resultCodes(verdict.txCode, verdict.ops);
      return { ok: false, status: 400, hash: env.hashHex, ledger: null, resultCodes: codes, problem: transactionFailedProblem(envelopeXdr, resultXdr, codes) };
    }

    const tx = env.tx!;
    const txCode: TxCode = verdict.successful ? 'tx_success' : 'tx_failed';
    const resultXdr = transactionResultXdr(verdict.feeCharged, txCode, verdict.ops);
    const facts = {
      tx,
      hash: env.hashHex,
      envelopeXdr,
      resultXdr,
      ledger: lctx.ledgerSeq,
      closeTime: lctx.closeTime,
      successful: verdict.successful,
      feeCharged: verdict.feeCharged,
      signatures: env.signatures.map((s) => s.signature),
    };
    const core = transactionCore(facts);
    const operations = operationRows(facts);
    const ledger: LedgerRow = {
      sequence: lctx.ledgerSeq,
      hash: createHash('sha256').update(`${ctx.head.hash}|${lctx.ledgerSeq}|${lctx.closeTime}|${env.hashHex}`).digest('hex'),
      prevHash: ctx.head.hash,
      closedAt,
      successfulTransactionCount: verdict.successful ? 1 : 0,
      failedTransactionCount: verdict.successful ? 0 : 1,
      operationCount: verdict.successful ? tx.operations.length : 0,
      txSetOperationCount: tx.operations.length,
      totalCoins: ctx.head.totalCoins,
      feePool: ctx.head.feePool + verdict.feeCharged,
      baseFee: ctx.head.baseFee,
      baseReserve: ctx.head.baseReserve,
    };
    await insertLedger(trx, ctx.network, ledger);
    await writeAccounts(trx, ctx.network, before, verdict.state, lctx.ledgerSeq);
    await writeBalances(trx, ctx.network, balancesBefore, verdict.balances);
    await insertTransaction(trx, ctx.network, {
      id: toid(lctx.ledgerSeq, 1, 0),
      hash: env.hashHex,
      ledger: lctx.ledgerSeq,
      successful: verdict.successful,
      resultCodes: resultCodes(txCode, verdict.ops),
      core,
      participants: [...new Set([env.source, ...operations.flatMap((o) => o.participants)])],
      operations,
    });
    return this.storedOutcome(core, resultCodes(txCode, verdict.ops), base);
  }

  /** What Horizon answers for a transaction in a ledger: its record, or transaction_failed with tx_failed. */
  private storedOutcome(core: Json, codes: ResultCodes, base: string): SubmitResult {
    const hash = String(core.hash);
    const ledger = Number(core.ledger);
    if (core.successful === true) return { ok: true, status: 200, hash, ledger, record: withTransactionLinks(core, base) };
    return { ok: false, status: 400, hash, ledger, resultCodes: codes, problem: transactionFailedProblem(String(core.envelope_xdr), String(core.result_xdr), codes) };
  }

  // ---- friendbot --------------------------------------------------------------------------------------

  /**
   * Funds `address` like testnet's friendbot: creates it with 10,000 XLM (createAccount from root) when it does
   * not exist; when it exists and trusts the stablecoin, the issuer pays it 1,000 of it; otherwise a 400.
   */
  /**
   * Friendbot: creates the account with 10,000 XLM, or (once it trusts the stablecoin) pays it `amount` stroops of the
   * stablecoin from the issuer (1,000 by default; at most FRIENDBOT_MAX_STABLECOIN, so a sandbox typo cannot mint
   * what no escrow can hold).
   */
  async friendbot(address: string, options: { baseUrl?: string; amount?: bigint } = {}): Promise<SubmitResult> {
    if (!StrKey.isValidEd25519PublicKey(address)) {
      return { ok: false, status: 400, hash: null, ledger: null, resultCodes: null, problem: badRequestProblem('addr', 'base32 decode failed: illegal base32 data at input byte 0') };
    }
    if (options.amount !== undefined && (options.amount <= 0n || options.amount > FRIENDBOT_MAX_STABLECOIN)) {
      return { ok: false, status: 400, hash: null, ledger: null, resultCodes: null, problem: badRequestProblem('amount', `amount must be more than 0 and at most ${formatAmount(FRIENDBOT_MAX_STABLECOIN)}`) };
    }
    await this.ensureGenesis();
    const { root, issuer } = this.keys;
    return this.locked(async (trx, ctx) => {
      const accounts = await loadAccounts(trx, ctx.network, [address, root.publicKey(), issuer.publicKey()]);
      const target = accounts.get(address);
      if (!target) {
        const op = Operation.createAccount({ destination: address, startingBalance: formatAmount(FRIENDBOT_STARTING_BALANCE) });
        return this.applyLocked(trx, ctx, this.build(root.publicKey(), accounts.get(root.publicKey())!.seqNum, [op], [root]), options.baseUrl ?? '');
      }
      const line = target.trustlines.find((t) => t.code === this.assetCode && t.issuer === issuer.publicKey());
      if (address === issuer.publicKey() || !line) {
        return { ok: false, status: 400, hash: null, ledger: null, resultCodes: null, problem: badRequestProblem('', 'account already funded to starting balance') };
      }
      const op = Operation.payment({ destination: address, asset: this.asset, amount: formatAmount(options.amount ?? FRIENDBOT_STABLECOIN_AMOUNT) });
      return this.applyLocked(trx, ctx, this.build(issuer.publicKey(), accounts.get(issuer.publicKey())!.seqNum, [op], [issuer]), options.baseUrl ?? '');
    });
  }

  // ---- reads (Horizon resources) -------------------------------------------------------------------------

  private async readContext(): Promise<{ network: number }> {
    await this.ensureGenesis();
    return { network: await this.network() };
  }

  async root(baseUrl = ''): Promise<Json> {
    const { network } = await this.readContext();
    return rootRecord((await headLedger(this.knex, network))!, this.passphrase, baseUrl);
  }

  async feeStats(): Promise<Json> {
    const { network } = await this.readContext();
    return feeStatsRecord((await headLedger(this.knex, network))!);
  }

  /** GET /accounts/:id, or null when the account does not exist. */
  async account(id: string, baseUrl = ''): Promise<Json | null> {
    const { network } = await this.readContext();
    const acc = (await loadAccounts(this.knex, network, [id])).get(id);
    if (!acc) return null;
    const l = await ledgerBySequence(this.knex, network, acc.lastModifiedLedger);
    return accountRecord(acc, l ? isoSeconds(Math.floor(l.closedAt.getTime() / 1000)) : '', baseUrl);
  }

  /** GET /accounts/:id/data/:key: the value, base64, or null. */
  async accountData(id: string, key: string): Promise<{ value: string } | null> {
    const { network } = await this.readContext();
    const acc = (await loadAccounts(this.knex, network, [id])).get(id);
    const entry = acc?.data.find((d) => d.name === key);
    return entry ? { value: Buffer.from(entry.value).toString('base64') } : null;
  }

  /** GET /transactions/:hash: transactions included in a ledger, failed ones too; null until then. */
  async transaction(hash: string, baseUrl = ''): Promise<Json | null> {
    const { network } = await this.readContext();
    const stored = await transactionByHash(this.knex, network, hash);
    return stored ? withTransactionLinks(stored.record, baseUrl) : null;
  }

  async transactions(q: PageQuery, filter: { account?: string; ledger?: number }, baseUrl = '', path = '/transactions'): Promise<Json> {
    const { network } = await this.readContext();
    const rows = await listTransactions(this.knex, network, q, filter);
    return page(
      rows.map((r) => withTransactionLinks(r, baseUrl)),
      q,
      baseUrl,
      path,
    );
  }

  async operations(
    q: PageQuery,
    filter: { account?: string; transactionHash?: string; ledger?: number; paymentsOnly?: boolean },
    baseUrl = '',
    path = '/operations',
  ): Promise<Json> {
    const { network } = await this.readContext();
    const rows = await listOperations(this.knex, network, q, filter);
    return page(
      rows.map((r) => withOperationLinks(r, baseUrl)),
      q,
      baseUrl,
      path,
    );
  }

  async operation(id: bigint, baseUrl = ''): Promise<Json | null> {
    const { network } = await this.readContext();
    const core = await operationById(this.knex, network, id);
    return core ? withOperationLinks(core, baseUrl) : null;
  }

  async ledger(sequence: number, baseUrl = ''): Promise<Json | null> {
    const { network } = await this.readContext();
    const l = await ledgerBySequence(this.knex, network, sequence);
    return l ? ledgerRecord(l, baseUrl) : null;
  }

  async ledgers(q: PageQuery, baseUrl = ''): Promise<Json> {
    const { network } = await this.readContext();
    const rows = await listLedgers(this.knex, network, q);
    return page(
      rows.map((l) => ledgerRecord(l, baseUrl)),
      q,
      baseUrl,
      '/ledgers',
    );
  }

  /** GET /claimable_balances/:id (the id with its 00000000 type prefix, or the bare hash), or null. */
  async claimableBalance(id: string, baseUrl = ''): Promise<Json | null> {
    const { network } = await this.readContext();
    const hash = id.toLowerCase().replace(/^00000000(?=[0-9a-f]{64}$)/, '');
    const entry = (await loadBalances(this.knex, network, [hash])).get(hash);
    if (!entry) return null;
    const l = await ledgerBySequence(this.knex, network, entry.lastModifiedLedger);
    return claimableBalanceRecord(entry, l ? isoSeconds(Math.floor(l.closedAt.getTime() / 1000)) : null, baseUrl);
  }

  /** GET /claimable_balances?claimant=…|sponsor=…, ordered by (last_modified_ledger, id). */
  async claimableBalances(q: BalancePageQuery, filter: { claimant?: string; sponsor?: string }, baseUrl = ''): Promise<Json> {
    const { network } = await this.readContext();
    const rows = await listBalances(this.knex, network, q, filter);
    const records: Json[] = [];
    for (const entry of rows) {
      const l = await ledgerBySequence(this.knex, network, entry.lastModifiedLedger);
      records.push(claimableBalanceRecord(entry, l ? isoSeconds(Math.floor(l.closedAt.getTime() / 1000)) : null, baseUrl));
    }
    const query = [filter.claimant ? `claimant=${filter.claimant}` : '', filter.sponsor ? `sponsor=${filter.sponsor}` : ''].filter(Boolean).join('&');
    const cursor = q.cursor ? `${q.cursor.ledger}-00000000${q.cursor.id}` : null;
    return balancePage(records, { cursor, limit: q.limit, order: q.order }, baseUrl, query);
  }

  /** The latest closed ledger's sequence. */
  async latestLedger(): Promise<number> {
    const { network } = await this.readContext();
    return (await headLedger(this.knex, network))!.sequence;
  }
}
