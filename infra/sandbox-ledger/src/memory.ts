/**
 * The sandbox network's state machine (engine.ts) over plain maps, for specs that submit thousands of real
 * transactions and cannot afford a database round trip each: accounts and claimable balances in memory, a close
 * time the caller sets, one ledger per applied transaction (as ledger.ts does). Nothing here decides anything:
 * `submit` loads what the transaction touches, runs `processTransaction` and keeps the new state when it applied.
 */
import { type Transaction } from '@stellar/stellar-sdk';
import { INT64_MAX } from './amounts';
import { resultCodes, type ResultCodes } from './codes';
import {
  BASE_FEE,
  BASE_RESERVE,
  TRUSTLINE_AUTHORIZED,
  balanceIdString,
  newAccount,
  parseEnvelope,
  processTransaction,
  touchedAccounts,
  touchedBalances,
  type AccountEntry,
  type AccountsState,
  type BalancesState,
  type ClaimableBalanceEntry,
} from './engine';

/** A transaction a ledger closed with: what it was, and how it ended (a failed one consumed its sequence all the same). */
export interface MemoryTransaction {
  hash: string;
  envelopeXdr: string;
  ledger: number;
  /** Unix seconds. */
  closeTime: bigint;
  successful: boolean;
  codes: ResultCodes;
}

export type MemorySubmitResult =
  | { applied: true; hash: string; ledger: number; successful: boolean; codes: ResultCodes }
  | { applied: false; hash: string | null; codes: ResultCodes | null };

export class MemoryLedger {
  private readonly accounts = new Map<string, AccountEntry>();
  /** By ClaimableBalanceID hash (64 hex), as the engine keys them. */
  private readonly balances = new Map<string, ClaimableBalanceEntry>();
  private readonly closed = new Map<string, MemoryTransaction>();
  private ledgerSeq = 1;
  private time: bigint;

  constructor(
    readonly passphrase: string,
    /** Unix seconds: the close time of the next ledger. */
    closeTime: bigint,
  ) {
    this.time = closeTime;
  }

  /** The close time of the ledgers from now on (unix seconds); it never goes back. */
  get closeTime(): bigint {
    return this.time;
  }

  setCloseTime(unixSeconds: bigint): void {
    if (unixSeconds > this.time) this.time = unixSeconds;
  }

  get latestLedger(): number {
    return this.ledgerSeq;
  }

  /** An account created out of band (as genesis and friendbot do), with `xlm` stroops of lumens. */
  createAccount(id: string, xlm: bigint): AccountEntry {
    if (this.accounts.has(id)) throw new Error(`account ${id} exists`);
    const account = newAccount(id, xlm, this.ledgerSeq);
    this.accounts.set(id, account);
    return structuredClone(account);
  }

  /** Adds an authorised trustline holding `balance` stroops (minted out of band, as friendbot does). */
  fundAsset(id: string, asset: { code: string; issuer: string }, balance: bigint): void {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`no account ${id}`);
    const line = account.trustlines.find((t) => t.code === asset.code && t.issuer === asset.issuer);
    if (line) line.balance += balance;
    else account.trustlines.push({ code: asset.code, issuer: asset.issuer, balance, limit: INT64_MAX, flags: TRUSTLINE_AUTHORIZED, lastModifiedLedger: this.ledgerSeq });
  }

  /** A copy of the account, or null when it does not exist (never created, or merged). */
  account(id: string): AccountEntry | null {
    const account = this.accounts.get(id);
    return account ? structuredClone(account) : null;
  }

  /** The account's balance of an asset in stroops (0 without a trustline or an account). */
  assetBalance(id: string, asset: { code: string; issuer: string }): bigint {
    return this.accounts.get(id)?.trustlines.find((t) => t.code === asset.code && t.issuer === asset.issuer)?.balance ?? 0n;
  }

  /** Every account id, merged ones excluded. */
  accountIds(): string[] {
    return [...this.accounts.keys()];
  }

  /** The claimable balances `claimant` is a claimant of (all of them without one), ids as Horizon prints them (00000000 + hash). */
  claimableBalances(filter: { claimant?: string } = {}): Array<ClaimableBalanceEntry & { balanceId: string }> {
    const list: Array<ClaimableBalanceEntry & { balanceId: string }> = [];
    for (const entry of this.balances.values()) {
      if (filter.claimant && !entry.claimants.some((c) => c.destination === filter.claimant)) continue;
      list.push({ ...structuredClone(entry), balanceId: balanceIdString(entry.id) });
    }
    return list;
  }

  /** A transaction some ledger closed with, or null (never submitted, or rejected: rejected ones leave no trace). */
  transaction(hash: string): MemoryTransaction | null {
    return this.closed.get(hash) ?? null;
  }

  /** Every transaction the ledgers closed with, in order (what Horizon's history lists). */
  transactions(): MemoryTransaction[] {
    return [...this.closed.values()];
  }

  /**
   * Horizon's POST /transactions on this state: a transaction already in a ledger answers what it answered then; a
   * rejected one changes nothing; an applied one closes a ledger of its own and keeps the engine's new state (its
   * fee and sequence number even when its operations failed).
   */
  submit(tx: Transaction | string): MemorySubmitResult {
    const envelopeXdr = typeof tx === 'string' ? tx : tx.toEnvelope().toXDR('base64');
    const env = parseEnvelope(envelopeXdr, this.passphrase);
    if (!env) return { applied: false, hash: null, codes: null };
    const known = this.closed.get(env.hashHex);
    if (known) return { applied: true, hash: known.hash, ledger: known.ledger, successful: known.successful, codes: known.codes };

    const balancesBefore: BalancesState = new Map(touchedBalances(env).map((id) => [id, this.balances.get(id) ?? null]));
    const before: AccountsState = new Map(touchedAccounts(env, balancesBefore).map((id) => [id, this.accounts.get(id) ?? null]));
    const ctx = { ledgerSeq: this.ledgerSeq + 1, closeTime: this.time, baseFee: BASE_FEE, baseReserve: BASE_RESERVE };
    const verdict = processTransaction(env, before, ctx, balancesBefore);
    if (verdict.kind === 'rejected') return { applied: false, hash: env.hashHex, codes: resultCodes(verdict.txCode, verdict.ops) };

    this.ledgerSeq = ctx.ledgerSeq;
    for (const [id, account] of verdict.state) {
      if (account) this.accounts.set(id, account);
      else this.accounts.delete(id);
    }
    for (const [id, entry] of verdict.balances) {
      if (entry) this.balances.set(id, entry);
      else this.balances.delete(id);
    }
    const codes = resultCodes(verdict.successful ? 'tx_success' : 'tx_failed', verdict.ops);
    this.closed.set(env.hashHex, { hash: env.hashHex, envelopeXdr, ledger: ctx.ledgerSeq, closeTime: ctx.closeTime, successful: verdict.successful, codes });
    return { applied: true, hash: env.hashHex, ledger: ctx.ledgerSeq, successful: verdict.successful, codes };
  }
}
