/** PostgreSQL persistence of the sandbox network (tables `sandbox_ledger_*`, migration 007). */
import type { Knex } from 'knex';
import type { AccountsState, BalancesState, ClaimPredicate, ClaimableBalanceEntry, DecodedAsset, SignerType } from './engine';
import type { ResultCodes } from './codes';
import type { Json, LedgerRow, OperationRow, PageQuery } from './records';

type Db = Knex | Knex.Transaction;

interface AccountRowDb {
  account_id: string;
  balance: string;
  seq_num: string;
  seq_ledger: string;
  seq_time: string;
  master_weight: number;
  low_threshold: number;
  med_threshold: number;
  high_threshold: number;
  flags: number;
  home_domain: string;
  inflation_destination: string | null;
  num_sponsoring: number;
  last_modified_ledger: string;
}

export const loadAccounts = async (db: Db, network: number, ids: string[]): Promise<AccountsState> => {
  const state: AccountsState = new Map(ids.map((id) => [id, null]));
  if (ids.length === 0) return state;
  // One query after the other: inside a transaction they share one connection.
  const accounts = (await db('sandbox_ledger_accounts').where({ network_id: network }).whereIn('account_id', ids)) as AccountRowDb[];
  const signers = await db('sandbox_ledger_signers').where({ network_id: network }).whereIn('account_id', ids).orderBy('signer_key');
  const trustlines = await db('sandbox_ledger_trustlines').where({ network_id: network }).whereIn('account_id', ids).orderBy(['asset_code', 'asset_issuer']);
  const data = await db('sandbox_ledger_data').where({ network_id: network }).whereIn('account_id', ids).orderBy('name');
  for (const r of accounts) {
    state.set(r.account_id, {
      id: r.account_id,
      balance: BigInt(r.balance),
      seqNum: BigInt(r.seq_num),
      seqLedger: Number(r.seq_ledger),
      seqTime: BigInt(r.seq_time),
      masterWeight: r.master_weight,
      lowThreshold: r.low_threshold,
      medThreshold: r.med_threshold,
      highThreshold: r.high_threshold,
      flags: r.flags,
      homeDomain: r.home_domain,
      inflationDest: r.inflation_destination,
      signers: [],
      trustlines: [],
      data: [],
      numSponsoring: r.num_sponsoring,
      lastModifiedLedger: Number(r.last_modified_ledger),
    });
  }
  for (const s of signers) state.get(s.account_id)?.signers.push({ key: s.signer_key, type: s.signer_type as SignerType, weight: s.weight });
  for (const t of trustlines)
    state.get(t.account_id)?.trustlines.push({
      code: t.asset_code,
      issuer: t.asset_issuer,
      balance: BigInt(t.balance),
      limit: BigInt(t.trust_limit),
      flags: t.flags,
      lastModifiedLedger: Number(t.last_modified_ledger),
    });
  for (const d of data) state.get(d.account_id)?.data.push({ name: d.name, value: new Uint8Array(d.value as Buffer), lastModifiedLedger: Number(d.last_modified_ledger) });
  return state;
};

const canonical = (value: unknown): string =>
  JSON.stringify(value, (key, v: unknown) =>
    key === 'lastModifiedLedger' ? undefined : typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
  );

/** Writes the accounts that changed between `before` and `after`, stamping what changed with the ledger. */
export const writeAccounts = async (trx: Knex.Transaction, network: number, before: AccountsState, after: AccountsState, ledger: number): Promise<void> => {
  for (const [id, acc] of after) {
    const old = before.get(id) ?? null;
    if (!acc) {
      if (old) await trx('sandbox_ledger_accounts').where({ network_id: network, account_id: id }).delete();
      continue;
    }
    if (old && canonical(old) === canonical(acc)) continue;
    const stamp = <T extends { lastModifiedLedger: number }>(entry: T, same: (o: T) => boolean, previous: T[] | undefined): number => {
      const prior = previous?.find(same);
      return prior && canonical(prior) === canonical(entry) ? prior.lastModifiedLedger : ledger;
    };
    await trx.raw(
      `INSERT INTO sandbox_ledger_accounts (network_id, account_id, balance, seq_num, seq_ledger, seq_time, master_weight, low_threshold, med_threshold,
         high_threshold, flags, home_domain, inflation_destination, num_sponsoring, last_modified_ledger)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (network_id, account_id) DO UPDATE SET balance = EXCLUDED.balance, seq_num = EXCLUDED.seq_num, seq_ledger = EXCLUDED.seq_ledger,
         seq_time = EXCLUDED.seq_time, master_weight = EXCLUDED.master_weight, low_threshold = EXCLUDED.low_threshold,
         med_threshold = EXCLUDED.med_threshold, high_threshold = EXCLUDED.high_threshold, flags = EXCLUDED.flags,
         home_domain = EXCLUDED.home_domain, inflation_destination = EXCLUDED.inflation_destination,
         num_sponsoring = EXCLUDED.num_sponsoring, last_modified_ledger = EXCLUDED.last_modified_ledger`,
      [
        network,
        id,
        acc.balance.toString(),
        acc.seqNum.toString(),
        acc.seqLedger,
        acc.seqTime.toString(),
        acc.masterWeight,
        acc.lowThreshold,
        acc.medThreshold,
        acc.highThreshold,
        acc.flags,
        acc.homeDomain,
        acc.inflationDest,
        acc.numSponsoring,
        ledger,
      ],
    );
    const key = { network_id: network, account_id: id };
    await trx('sandbox_ledger_signers').where(key).delete();
    await trx('sandbox_ledger_trustlines').where(key).delete();
    await trx('sandbox_ledger_data').where(key).delete();
    if (acc.signers.length > 0) await trx('sandbox_ledger_signers').insert(acc.signers.map((s) => ({ ...key, signer_key: s.key, signer_type: s.type, weight: s.weight })));
    if (acc.trustlines.length > 0)
      await trx('sandbox_ledger_trustlines').insert(
        acc.trustlines.map((t) => ({
          ...key,
          asset_code: t.code,
          asset_issuer: t.issuer,
          balance: t.balance.toString(),
          trust_limit: t.limit.toString(),
          flags: t.flags,
          last_modified_ledger: stamp(t, (o) => o.code === t.code && o.issuer === t.issuer, old?.trustlines),
        })),
      );
    if (acc.data.length > 0)
      await trx('sandbox_ledger_data').insert(
        acc.data.map((d) => ({ ...key, name: d.name, value: Buffer.from(d.value), last_modified_ledger: stamp(d, (o) => o.name === d.name, old?.data) })),
      );
  }
};

interface LedgerRowDb {
  sequence: string;
  hash: string;
  prev_hash: string | null;
  closed_at: Date;
  successful_transaction_count: number;
  failed_transaction_count: number;
  operation_count: number;
  tx_set_operation_count: number;
  total_coins: string;
  fee_pool: string;
  base_fee: string;
  base_reserve: string;
}

const toLedgerRow = (r: LedgerRowDb): LedgerRow => ({
  sequence: Number(r.sequence),
  hash: r.hash,
  prevHash: r.prev_hash,
  closedAt: r.closed_at,
  successfulTransactionCount: r.successful_transaction_count,
  failedTransactionCount: r.failed_transaction_count,
  operationCount: r.operation_count,
  txSetOperationCount: r.tx_set_operation_count,
  totalCoins: BigInt(r.total_coins),
  feePool: BigInt(r.fee_pool),
  baseFee: BigInt(r.base_fee),
  baseReserve: BigInt(r.base_reserve),
});

export const headLedger = async (db: Db, network: number): Promise<LedgerRow | null> => {
  const r = (await db('sandbox_ledger_ledgers').where({ network_id: network }).orderBy('sequence', 'desc').first()) as LedgerRowDb | undefined;
  return r ? toLedgerRow(r) : null;
};

export const ledgerBySequence = async (db: Db, network: number, sequence: number): Promise<LedgerRow | null> => {
  const r = (await db('sandbox_ledger_ledgers').where({ network_id: network, sequence }).first()) as LedgerRowDb | undefined;
  return r ? toLedgerRow(r) : null;
};

export const insertLedger = async (trx: Knex.Transaction, network: number, l: LedgerRow): Promise<void> => {
  await trx('sandbox_ledger_ledgers').insert({
    network_id: network,
    sequence: l.sequence,
    hash: l.hash,
    prev_hash: l.prevHash,
    closed_at: l.closedAt,
    successful_transaction_count: l.successfulTransactionCount,
    failed_transaction_count: l.failedTransactionCount,
    operation_count: l.operationCount,
    tx_set_operation_count: l.txSetOperationCount,
    total_coins: l.totalCoins.toString(),
    fee_pool: l.feePool.toString(),
    base_fee: l.baseFee.toString(),
    base_reserve: l.baseReserve.toString(),
  });
};

export interface StoredTransaction {
  id: bigint;
  hash: string;
  ledger: number;
  successful: boolean;
  resultCodes: ResultCodes;
  core: Json;
  participants: string[];
  operations: OperationRow[];
}

export const insertTransaction = async (trx: Knex.Transaction, network: number, t: StoredTransaction): Promise<void> => {
  const txId = t.id.toString();
  await trx('sandbox_ledger_transactions').insert({
    network_id: network,
    id: txId,
    hash: t.hash,
    ledger: t.ledger,
    source_account: String(t.core.source_account),
    successful: t.successful,
    result_codes: JSON.stringify(t.resultCodes),
    record: JSON.stringify(t.core),
  });
  await trx('sandbox_ledger_transaction_participants').insert(t.participants.map((account_id) => ({ network_id: network, account_id, transaction_id: txId })));
  if (t.operations.length === 0) return;
  await trx('sandbox_ledger_operations').insert(
    t.operations.map((o) => ({
      network_id: network,
      id: o.id.toString(),
      transaction_id: txId,
      type: o.type,
      is_payment: o.isPayment,
      successful: t.successful,
      record: JSON.stringify(o.core),
    })),
  );
  await trx('sandbox_ledger_operation_participants').insert(
    t.operations.flatMap((o) => o.participants.map((account_id) => ({ network_id: network, account_id, operation_id: o.id.toString() }))),
  );
};

export const transactionByHash = async (db: Db, network: number, hash: string): Promise<{ record: Json; resultCodes: ResultCodes } | null> => {
  const r = await db('sandbox_ledger_transactions').where({ network_id: network, hash }).first('record', 'result_codes');
  return r ? { record: r.record as Json, resultCodes: r.result_codes as ResultCodes } : null;
};

const paged = <T extends Knex.QueryBuilder>(q: T, column: string, p: PageQuery): T => {
  if (p.cursor !== null) q.where(column, p.order === 'asc' ? '>' : '<', p.cursor.toString());
  return q.orderBy(column, p.order).limit(p.limit) as T;
};

export const listTransactions = async (db: Db, network: number, p: PageQuery, filter: { account?: string; ledger?: number }): Promise<Json[]> => {
  const q = db('sandbox_ledger_transactions as t').where('t.network_id', network).select('t.record');
  if (filter.account)
    q.whereExists(
      db('sandbox_ledger_transaction_participants as p').whereRaw('p.network_id = t.network_id AND p.transaction_id = t.id').where('p.account_id', filter.account),
    );
  if (filter.ledger !== undefined) q.where('t.ledger', filter.ledger);
  if (!p.includeFailed) q.where('t.successful', true);
  const rows = await paged(q, 't.id', p);
  return rows.map((r: { record: Json }) => r.record);
};

export const listOperations = async (
  db: Db,
  network: number,
  p: PageQuery,
  filter: { account?: string; transactionHash?: string; ledger?: number; paymentsOnly?: boolean },
): Promise<Json[]> => {
  const q = db('sandbox_ledger_operations as o').where('o.network_id', network).select('o.record');
  if (filter.account)
    q.whereExists(
      db('sandbox_ledger_operation_participants as p').whereRaw('p.network_id = o.network_id AND p.operation_id = o.id').where('p.account_id', filter.account),
    );
  if (filter.transactionHash)
    q.whereIn('o.transaction_id', db('sandbox_ledger_transactions').where({ network_id: network, hash: filter.transactionHash }).select('id'));
  if (filter.ledger !== undefined) q.whereRaw('o.id >> 32 = ?', [filter.ledger]);
  if (filter.paymentsOnly) q.where('o.is_payment', true);
  // A transaction's own operations are listed whatever its outcome, as Horizon does.
  if (!p.includeFailed && !filter.transactionHash) q.where('o.successful', true);
  const rows = await paged(q, 'o.id', p);
  return rows.map((r: { record: Json }) => r.record);
};

export const operationById = async (db: Db, network: number, id: bigint): Promise<Json | null> => {
  const r = await db('sandbox_ledger_operations').where({ network_id: network, id: id.toString() }).first('record');
  return r ? (r.record as Json) : null;
};

export const listLedgers = async (db: Db, network: number, p: PageQuery): Promise<LedgerRow[]> => {
  const q = db('sandbox_ledger_ledgers').where({ network_id: network });
  if (p.cursor !== null) q.where('sequence', p.order === 'asc' ? '>' : '<', (p.cursor >> 32n).toString());
  const rows = (await q.orderBy('sequence', p.order).limit(p.limit)) as LedgerRowDb[];
  return rows.map(toLedgerRow);
};

// ---- claimable balances ------------------------------------------------------------------------------------

/** A predicate as stored (jsonb): the engine's shape with times as decimal strings. */
type StoredPredicate =
  | { type: 'unconditional' }
  | { type: 'and' | 'or'; predicates: StoredPredicate[] }
  | { type: 'not'; predicate: StoredPredicate | null }
  | { type: 'before_absolute_time'; time: string }
  | { type: 'before_relative_time'; seconds: string };

const storePredicate = (p: ClaimPredicate): StoredPredicate => {
  switch (p.type) {
    case 'and':
    case 'or':
      return { type: p.type, predicates: p.predicates.map(storePredicate) };
    case 'not':
      return { type: 'not', predicate: p.predicate ? storePredicate(p.predicate) : null };
    case 'before_absolute_time':
      return { type: p.type, time: p.time.toString() };
    case 'before_relative_time':
      return { type: p.type, seconds: p.seconds.toString() };
    default:
      return p;
  }
};

const loadPredicate = (p: StoredPredicate): ClaimPredicate => {
  switch (p.type) {
    case 'and':
    case 'or':
      return { type: p.type, predicates: p.predicates.map(loadPredicate) };
    case 'not':
      return { type: 'not', predicate: p.predicate ? loadPredicate(p.predicate) : null };
    case 'before_absolute_time':
      return { type: p.type, time: BigInt(p.time) };
    case 'before_relative_time':
      return { type: p.type, seconds: BigInt(p.seconds) };
    default:
      return p;
  }
};

interface BalanceRowDb {
  balance_id: string;
  asset_type: string;
  asset_code: string;
  asset_issuer: string;
  amount: string;
  sponsor: string;
  claimants: Array<{ destination: string; predicate: StoredPredicate }>;
  flags: number;
  last_modified_ledger: string;
}

const toBalance = (r: BalanceRowDb): ClaimableBalanceEntry => ({
  id: r.balance_id,
  asset: { type: r.asset_type as DecodedAsset['type'], code: r.asset_code, issuer: r.asset_issuer },
  amount: BigInt(r.amount),
  claimants: r.claimants.map((c) => ({ destination: c.destination, predicate: loadPredicate(c.predicate) })),
  sponsor: r.sponsor,
  flags: r.flags,
  lastModifiedLedger: Number(r.last_modified_ledger),
});

export const loadBalances = async (db: Db, network: number, ids: string[]): Promise<BalancesState> => {
  const state: BalancesState = new Map(ids.map((id) => [id, null]));
  if (ids.length === 0) return state;
  const rows = (await db('sandbox_ledger_claimable_balances').where({ network_id: network }).whereIn('balance_id', ids)) as BalanceRowDb[];
  for (const r of rows) state.set(r.balance_id, toBalance(r));
  return state;
};

/** Inserts the claimable balances created and deletes the ones claimed (an entry never changes in between). */
export const writeBalances = async (trx: Knex.Transaction, network: number, before: BalancesState, after: BalancesState): Promise<void> => {
  for (const [id, entry] of after) {
    const old = before.get(id) ?? null;
    if (!entry) {
      if (old) await trx('sandbox_ledger_claimable_balances').where({ network_id: network, balance_id: id }).delete();
      continue;
    }
    if (old) continue;
    await trx('sandbox_ledger_claimable_balances').insert({
      network_id: network,
      balance_id: id,
      asset_type: entry.asset.type,
      asset_code: entry.asset.code,
      asset_issuer: entry.asset.issuer,
      amount: entry.amount.toString(),
      sponsor: entry.sponsor,
      claimants: JSON.stringify(entry.claimants.map((c) => ({ destination: c.destination, predicate: storePredicate(c.predicate) }))),
      destinations: entry.claimants.map((c) => c.destination),
      flags: entry.flags,
      last_modified_ledger: entry.lastModifiedLedger,
    });
  }
};

export interface BalancePageQuery {
  /** Horizon's claimable balance cursor: `<last_modified_ledger>-<balance id>`. */
  cursor: { ledger: number; id: string } | null;
  limit: number;
  order: 'asc' | 'desc';
}

/** GET /claimable_balances: by claimant and/or sponsor, ordered by (last_modified_ledger, id) as Horizon. */
export const listBalances = async (db: Db, network: number, p: BalancePageQuery, filter: { claimant?: string; sponsor?: string }): Promise<ClaimableBalanceEntry[]> => {
  const q = db('sandbox_ledger_claimable_balances').where({ network_id: network });
  if (filter.claimant) q.whereRaw('destinations @> ARRAY[?]::text[]', [filter.claimant]);
  if (filter.sponsor) q.where('sponsor', filter.sponsor);
  if (p.cursor) q.whereRaw(`(last_modified_ledger, balance_id) ${p.order === 'asc' ? '>' : '<'} (?, ?)`, [p.cursor.ledger, p.cursor.id]);
  const rows = (await q.orderBy([
    { column: 'last_modified_ledger', order: p.order },
    { column: 'balance_id', order: p.order },
  ]).limit(p.limit)) as BalanceRowDb[];
  return rows.map(toBalance);
};

// ---- the network's clock ----------------------------------------------------------------------------------

export const clockOffset = async (db: Db, network: number): Promise<bigint> => {
  const r = await db('sandbox_ledger_networks').where({ id: network }).first('clock_offset_seconds');
  return BigInt(r?.clock_offset_seconds ?? 0);
};

export const addClockOffset = async (trx: Knex.Transaction, network: number, seconds: bigint): Promise<bigint> => {
  const r = await trx.raw('UPDATE sandbox_ledger_networks SET clock_offset_seconds = clock_offset_seconds + ? WHERE id = ? RETURNING clock_offset_seconds', [
    seconds.toString(),
    network,
  ]);
  return BigInt(r.rows[0].clock_offset_seconds);
};
