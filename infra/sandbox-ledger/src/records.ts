/**
 * Horizon's JSON resources (HAL), built the way Horizon prints them: amounts as 7-decimal strings, int64s as
 * strings, times as RFC 3339 seconds. Records are stored without `_links`; links are added per request with the
 * base URL the client used (so they keep the `/sandbox/horizon` prefix).
 */
import { StrKey } from '@stellar/stellar-sdk';
import { formatAmount } from './amounts';
import { OP, OPERATION_TYPE_NAMES, type OperationWire, type ResultCodes, type TxWire } from './codes';
import {
  ACCOUNT_FLAGS,
  TRUSTLINE_AUTHORIZED,
  balanceIdString,
  decodeAsset,
  muxedToAddress,
  numSubEntries,
  opSourceAddress,
  predicateFromWire,
  signerKeyString,
  type AccountEntry,
  type ClaimPredicate,
  type ClaimableBalanceEntry,
  type DecodedAsset,
} from './engine';

export const HORIZON_VERSION = 'cagnotte-sandbox-1.0';
export const CORE_VERSION = 'cagnotte-sandbox';
export const PROTOCOL_VERSION = 23;

export type Json = Record<string, unknown>;
type Link = { href: string; templated?: boolean };

export const isoSeconds = (unixSeconds: bigint | number): string => new Date(Number(unixSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Horizon's total order id: ledger << 32 | application order << 12 | operation index. */
export const toid = (ledger: number, txOrder: number, opIndex: number): bigint => (BigInt(ledger) << 32n) | (BigInt(txOrder) << 12n) | BigInt(opIndex);

// ---- problems -------------------------------------------------------------------------------------------

export interface HorizonProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  extras?: Json;
}

const problemType = (slug: string) => `https://stellar.org/horizon-errors/${slug}`;

export const notFoundProblem = (): HorizonProblem => ({
  type: problemType('not_found'),
  title: 'Resource Missing',
  status: 404,
  detail:
    'The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.',
});

export const badRequestProblem = (invalidField: string, reason: string): HorizonProblem => ({
  type: problemType('bad_request'),
  title: 'Bad Request',
  status: 400,
  detail: 'The request you sent was invalid in some way.',
  extras: { invalid_field: invalidField, reason },
});

export const malformedProblem = (envelopeXdr: string): HorizonProblem => ({
  type: problemType('transaction_malformed'),
  title: 'Transaction Malformed',
  status: 400,
  detail:
    'Horizon could not decode the transaction envelope in this request. A transaction should be an XDR TransactionEnvelope struct encoded using base64.  The envelope read from this request is echoed in the `extras.envelope_xdr` field of this response for your convenience.',
  extras: { envelope_xdr: envelopeXdr },
});

export const transactionFailedProblem = (envelopeXdr: string, resultXdr: string, codes: ResultCodes): HorizonProblem => ({
  type: problemType('transaction_failed'),
  title: 'Transaction Failed',
  status: 400,
  detail:
    'The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this response contains further details.  Descriptions of each code can be found at: https://developers.stellar.org/docs/data/apis/horizon/api-reference/errors/http-status-codes/horizon-specific/transaction-failed',
  extras: { envelope_xdr: envelopeXdr, result_codes: codes, result_xdr: resultXdr },
});

export const serverErrorProblem = (): HorizonProblem => ({
  type: problemType('server_error'),
  title: 'Internal Server Error',
  status: 500,
  detail:
    'An error occurred while processing this request.  This is usually due to a bug within the server software.  Trying this request again may succeed if the bug is transient, otherwise please report this issue to the issue tracker at: https://github.com/stellar/go/issues. Please include this response in your issue.',
});

// ---- accounts -------------------------------------------------------------------------------------------

const assetFields = (a: DecodedAsset): Json => (a.type === 'native' ? { asset_type: 'native' } : { asset_type: a.type, asset_code: a.code, asset_issuer: a.issuer });
const creditType = (code: string) => (code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12');

export const accountRecord = (acc: AccountEntry, lastModifiedTime: string, base: string): Json => {
  const self = `${base}/accounts/${acc.id}`;
  const tpl = (path: string): Link => ({ href: `${self}/${path}{?cursor,limit,order}`, templated: true });
  const signers = [
    ...(acc.masterWeight > 0 ? [{ weight: acc.masterWeight, key: acc.id, type: 'ed25519_public_key' }] : []),
    ...acc.signers.map((s) => ({ weight: s.weight, key: s.key, type: s.type })),
  ];
  return {
    _links: {
      self: { href: self },
      transactions: tpl('transactions'),
      operations: tpl('operations'),
      payments: tpl('payments'),
      effects: tpl('effects'),
      offers: tpl('offers'),
      trades: tpl('trades'),
      data: { href: `${self}/data/{key}`, templated: true },
    },
    id: acc.id,
    account_id: acc.id,
    sequence: acc.seqNum.toString(),
    sequence_ledger: acc.seqLedger,
    sequence_time: acc.seqTime.toString(),
    subentry_count: numSubEntries(acc),
    ...(acc.inflationDest ? { inflation_destination: acc.inflationDest } : {}),
    ...(acc.homeDomain ? { home_domain: acc.homeDomain } : {}),
    last_modified_ledger: acc.lastModifiedLedger,
    last_modified_time: lastModifiedTime,
    thresholds: { low_threshold: acc.lowThreshold, med_threshold: acc.medThreshold, high_threshold: acc.highThreshold },
    flags: {
      auth_required: Boolean(acc.flags & ACCOUNT_FLAGS.authRequired),
      auth_revocable: Boolean(acc.flags & ACCOUNT_FLAGS.authRevocable),
      auth_immutable: Boolean(acc.flags & ACCOUNT_FLAGS.authImmutable),
      auth_clawback_enabled: Boolean(acc.flags & ACCOUNT_FLAGS.authClawbackEnabled),
    },
    balances: [
      ...[...acc.trustlines]
        .sort((a, b) => (a.code === b.code ? (a.issuer < b.issuer ? -1 : 1) : a.code < b.code ? -1 : 1))
        .map((t) => ({
          balance: formatAmount(t.balance),
          limit: formatAmount(t.limit),
          buying_liabilities: '0.0000000',
          selling_liabilities: '0.0000000',
          last_modified_ledger: t.lastModifiedLedger,
          is_authorized: Boolean(t.flags & TRUSTLINE_AUTHORIZED),
          is_authorized_to_maintain_liabilities: Boolean(t.flags & TRUSTLINE_AUTHORIZED),
          is_clawback_enabled: false,
          asset_type: creditType(t.code),
          asset_code: t.code,
          asset_issuer: t.issuer,
        })),
      { balance: formatAmount(acc.balance), buying_liabilities: '0.0000000', selling_liabilities: '0.0000000', asset_type: 'native' },
    ],
    signers,
    data: Object.fromEntries(acc.data.map((d) => [d.name, Buffer.from(d.value).toString('base64')])),
    num_sponsoring: acc.numSponsoring,
    num_sponsored: 0,
    paging_token: acc.id,
  };
};

// ---- transactions ---------------------------------------------------------------------------------------

const memoFields = (tx: TxWire): Json => {
  const m = tx.memo;
  switch (m.type) {
    case 1:
      return { memo_type: 'text', memo: Buffer.from(m.text.bytes).toString('utf8'), memo_bytes: Buffer.from(m.text.bytes).toString('base64') };
    case 2:
      return { memo_type: 'id', memo: m.id.toString() };
    case 3:
      return { memo_type: 'hash', memo: Buffer.from(m.hash).toString('base64') };
    case 4:
      return { memo_type: 'return', memo: Buffer.from(m.retHash).toString('base64') };
    default:
      return { memo_type: 'none' };
  }
};

const preconditionFields = (tx: TxWire): Json => {
  const c = tx.cond;
  const v2 = c.type === 2 ? c.v2 : null;
  const tb = c.type === 1 ? c.timeBounds : v2?.timeBounds ?? null;
  const pre: Json = {};
  const out: Json = {};
  if (tb) {
    pre.timebounds = { min_time: tb.minTime.toString(), ...(tb.maxTime !== 0n ? { max_time: tb.maxTime.toString() } : {}) };
    out.valid_after = isoSeconds(tb.minTime);
    if (tb.maxTime !== 0n) out.valid_before = isoSeconds(tb.maxTime);
  }
  if (v2?.ledgerBounds) pre.ledgerbounds = { min_ledger: v2.ledgerBounds.minLedger, max_ledger: v2.ledgerBounds.maxLedger };
  if (v2?.minSeqNum !== null && v2?.minSeqNum !== undefined) pre.min_account_sequence = v2.minSeqNum.toString();
  if (v2 && v2.minSeqAge !== 0n) pre.min_account_sequence_age = v2.minSeqAge.toString();
  if (v2 && v2.minSeqLedgerGap !== 0) pre.min_account_sequence_ledger_gap = v2.minSeqLedgerGap;
  if (v2 && v2.extraSigners.length > 0) pre.extra_signers = v2.extraSigners.map((k) => signerKeyString(k).key);
  return Object.keys(pre).length > 0 ? { ...out, preconditions: pre } : out;
};

export interface TransactionFacts {
  tx: TxWire;
  hash: string;
  envelopeXdr: string;
  resultXdr: string;
  ledger: number;
  closeTime: bigint;
  successful: boolean;
  feeCharged: bigint;
  signatures: Uint8Array[];
}

/** The stored part of Horizon's transaction resource (everything but `_links`). */
export const transactionCore = (f: TransactionFacts): Json => {
  const id = toid(f.ledger, 1, 0).toString();
  const source = muxedToAddress(f.tx.sourceAccount);
  return {
    id: f.hash,
    paging_token: id,
    successful: f.successful,
    hash: f.hash,
    ledger: f.ledger,
    created_at: isoSeconds(f.closeTime),
    source_account: source,
    source_account_sequence: f.tx.seqNum.toString(),
    fee_account: source,
    fee_charged: f.feeCharged.toString(),
    max_fee: String(f.tx.fee),
    operation_count: f.tx.operations.length,
    envelope_xdr: f.envelopeXdr,
    result_xdr: f.resultXdr,
    ...memoFields(f.tx),
    signatures: f.signatures.map((s) => Buffer.from(s).toString('base64')),
    ...preconditionFields(f.tx),
  };
};

export const withTransactionLinks = (core: Json, base: string): Json => {
  const hash = String(core.hash);
  const self = `${base}/transactions/${hash}`;
  return {
    _links: {
      self: { href: self },
      account: { href: `${base}/accounts/${String(core.source_account)}` },
      ledger: { href: `${base}/ledgers/${String(core.ledger)}` },
      operations: { href: `${self}/operations{?cursor,limit,order}`, templated: true },
      effects: { href: `${self}/effects{?cursor,limit,order}`, templated: true },
      precedes: { href: `${base}/transactions?order=asc&cursor=${String(core.paging_token)}` },
      succeeds: { href: `${base}/transactions?order=desc&cursor=${String(core.paging_token)}` },
      transaction: { href: self },
    },
    ...core,
  };
};

// ---- operations -----------------------------------------------------------------------------------------

const FLAG_NAMES: Array<[number, string]> = [
  [ACCOUNT_FLAGS.authRequired, 'auth_required'],
  [ACCOUNT_FLAGS.authRevocable, 'auth_revocable'],
  [ACCOUNT_FLAGS.authImmutable, 'auth_immutable'],
  [ACCOUNT_FLAGS.authClawbackEnabled, 'auth_clawback_enabled'],
];
const flagFields = (flags: number | null, prefix: string): Json => {
  if (!flags) return {};
  const set = FLAG_NAMES.filter(([bit]) => flags & bit);
  return { [prefix]: set.map(([bit]) => bit), [`${prefix}_s`]: set.map(([, n]) => n) };
};

/** Operation-specific fields of Horizon's operation resource. */
const operationDetails = (source: string, op: OperationWire): Json => {
  const b = op.body;
  switch (b.type) {
    case OP.createAccount:
      return { starting_balance: formatAmount(b.createAccountOp.startingBalance), funder: source, account: StrKey.encodeEd25519PublicKey(b.createAccountOp.destination.ed25519) };
    case OP.payment:
      return { ...assetFields(decodeAsset(b.paymentOp.asset) as DecodedAsset), from: source, to: muxedToAddress(b.paymentOp.destination), amount: formatAmount(b.paymentOp.amount) };
    case OP.setOptions: {
      const o = b.setOptionsOp;
      return {
        ...(o.homeDomain ? { home_domain: Buffer.from(o.homeDomain.bytes).toString('latin1') } : {}),
        ...(o.inflationDest ? { inflation_dest: StrKey.encodeEd25519PublicKey(o.inflationDest.ed25519) } : {}),
        ...(o.masterWeight !== null ? { master_key_weight: o.masterWeight } : {}),
        ...(o.lowThreshold !== null ? { low_threshold: o.lowThreshold } : {}),
        ...(o.medThreshold !== null ? { med_threshold: o.medThreshold } : {}),
        ...(o.highThreshold !== null ? { high_threshold: o.highThreshold } : {}),
        ...(o.signer ? { signer_key: signerKeyString(o.signer.key).key, signer_weight: o.signer.weight } : {}),
        ...flagFields(o.setFlags, 'set_flags'),
        ...flagFields(o.clearFlags, 'clear_flags'),
      };
    }
    case OP.changeTrust: {
      const a = decodeAsset(b.changeTrustOp.line) as DecodedAsset;
      return { ...assetFields(a), limit: formatAmount(b.changeTrustOp.limit), trustee: a.issuer, trustor: source };
    }
    case OP.accountMerge:
      return { account: source, into: muxedToAddress(b.destination) };
    case OP.manageData:
      return { name: Buffer.from(b.manageDataOp.dataName.bytes).toString('latin1'), value: b.manageDataOp.dataValue ? Buffer.from(b.manageDataOp.dataValue).toString('base64') : '' };
    case OP.bumpSequence:
      return { bump_to: b.bumpSequenceOp.bumpTo.toString() };
    case OP.createClaimableBalance: {
      const o = b.createClaimableBalanceOp;
      return {
        asset: assetString(decodeAsset(o.asset) as DecodedAsset),
        amount: formatAmount(o.amount),
        claimants: o.claimants.map((c) => ({ destination: StrKey.encodeEd25519PublicKey(c.v0.destination.ed25519), predicate: predicateJson(predicateFromWire(c.v0.predicate)) })),
      };
    }
    case OP.claimClaimableBalance:
      return { balance_id: balanceIdString(Buffer.from(b.claimClaimableBalanceOp.balanceId.v0).toString('hex')), claimant: source };
    default:
      return {};
  }
};

export const PAYMENT_TYPES: ReadonlySet<number> = new Set([OP.createAccount, OP.payment, 2, 13, OP.accountMerge]);

export interface OperationRow {
  id: bigint;
  type: string;
  isPayment: boolean;
  participants: string[];
  core: Json;
}

/** The stored part of every operation's resource, and who takes part in it (for /accounts/:id/operations). */
export const operationRows = (f: TransactionFacts): OperationRow[] =>
  f.tx.operations.map((op, i) => {
    const id = toid(f.ledger, 1, i + 1);
    const source = opSourceAddress(f.tx, op);
    const type = OPERATION_TYPE_NAMES[op.body.type] ?? 'unknown';
    const details = operationDetails(source, op);
    const participants = new Set([source]);
    for (const key of ['account', 'to', 'into'] as const) if (typeof details[key] === 'string') participants.add(details[key] as string);
    // Horizon's participants of a createClaimableBalance include its claimants.
    if (Array.isArray(details.claimants)) for (const c of details.claimants as Array<{ destination: string }>) participants.add(c.destination);
    return {
      id,
      type,
      isPayment: PAYMENT_TYPES.has(op.body.type),
      participants: [...participants],
      core: {
        id: id.toString(),
        paging_token: id.toString(),
        transaction_successful: f.successful,
        source_account: source,
        type,
        type_i: op.body.type,
        created_at: isoSeconds(f.closeTime),
        transaction_hash: f.hash,
        ...details,
      },
    };
  });

export const withOperationLinks = (core: Json, base: string): Json => {
  const id = String(core.id);
  return {
    _links: {
      self: { href: `${base}/operations/${id}` },
      transaction: { href: `${base}/transactions/${String(core.transaction_hash)}` },
      effects: { href: `${base}/operations/${id}/effects` },
      succeeds: { href: `${base}/effects?order=desc&cursor=${id}` },
      precedes: { href: `${base}/effects?order=asc&cursor=${id}` },
    },
    ...core,
  };
};

// ---- claimable balances -------------------------------------------------------------------------------

/** Horizon's asset string: `native` or `CODE:ISSUER`. */
export const assetString = (a: DecodedAsset): string => (a.type === 'native' ? 'native' : `${a.code}:${a.issuer}`);

/** Latest instant a JS Date can print (Horizon prints any int64; beyond this only abs_before_epoch is given). */
const MAX_DATE_SECONDS = 8_640_000_000_000n;

/** A claim predicate in Horizon's JSON (stellar/go xdr ClaimPredicate MarshalJSON). */
export const predicateJson = (p: ClaimPredicate): Json => {
  switch (p.type) {
    case 'unconditional':
      return { unconditional: true };
    case 'and':
      return { and: p.predicates.map(predicateJson) };
    case 'or':
      return { or: p.predicates.map(predicateJson) };
    case 'not':
      return { not: p.predicate ? predicateJson(p.predicate) : null };
    case 'before_absolute_time':
      return { ...(p.time <= MAX_DATE_SECONDS ? { abs_before: isoSeconds(p.time) } : {}), abs_before_epoch: p.time.toString() };
    case 'before_relative_time':
      return { rel_before: p.seconds.toString() };
  }
};

/** Horizon's paging token of a claimable balance: `<last_modified_ledger>-<id>`. */
export const balancePagingToken = (b: ClaimableBalanceEntry): string => `${b.lastModifiedLedger}-${balanceIdString(b.id)}`;

export const claimableBalanceRecord = (b: ClaimableBalanceEntry, lastModifiedTime: string | null, base: string): Json => {
  const id = balanceIdString(b.id);
  const self = `${base}/claimable_balances/${id}`;
  return {
    _links: {
      self: { href: self },
      transactions: { href: `${self}/transactions{?cursor,limit,order}`, templated: true },
      operations: { href: `${self}/operations{?cursor,limit,order}`, templated: true },
    },
    id,
    asset: assetString(b.asset),
    amount: formatAmount(b.amount),
    sponsor: b.sponsor,
    last_modified_ledger: b.lastModifiedLedger,
    last_modified_time: lastModifiedTime,
    claimants: b.claimants.map((c) => ({ destination: c.destination, predicate: predicateJson(c.predicate) })),
    flags: { clawback_enabled: Boolean(b.flags & 1) },
    paging_token: balancePagingToken(b),
  };
};

/** A claimable balances page: the cursor is a string token, not a number. */
export const balancePage = (records: Json[], q: { cursor: string | null; limit: number; order: 'asc' | 'desc' }, base: string, query: string): Json => {
  const href = (cursor: string, order: string) => `${base}/claimable_balances?${query}${query ? '&' : ''}cursor=${cursor}&limit=${q.limit}&order=${order}`;
  const current = q.cursor ?? '';
  const first = records[0]?.paging_token as string | undefined;
  const last = records[records.length - 1]?.paging_token as string | undefined;
  return {
    _links: {
      self: { href: href(current, q.order) },
      next: { href: href(last ?? current, q.order) },
      prev: { href: href(first ?? current, q.order === 'asc' ? 'desc' : 'asc') },
    },
    _embedded: { records },
  };
};

// ---- ledgers, root, fee stats, pages --------------------------------------------------------------------

export interface LedgerRow {
  sequence: number;
  hash: string;
  prevHash: string | null;
  closedAt: Date;
  successfulTransactionCount: number;
  failedTransactionCount: number;
  operationCount: number;
  txSetOperationCount: number;
  totalCoins: bigint;
  feePool: bigint;
  baseFee: bigint;
  baseReserve: bigint;
}

export const ledgerRecord = (l: LedgerRow, base: string): Json => {
  const self = `${base}/ledgers/${l.sequence}`;
  const tpl = (path: string): Link => ({ href: `${self}/${path}{?cursor,limit,order}`, templated: true });
  return {
    _links: { self: { href: self }, transactions: tpl('transactions'), operations: tpl('operations'), payments: tpl('payments'), effects: tpl('effects') },
    id: l.hash,
    paging_token: toid(l.sequence, 0, 0).toString(),
    hash: l.hash,
    ...(l.prevHash ? { prev_hash: l.prevHash } : {}),
    sequence: l.sequence,
    successful_transaction_count: l.successfulTransactionCount,
    failed_transaction_count: l.failedTransactionCount,
    operation_count: l.operationCount,
    tx_set_operation_count: l.txSetOperationCount,
    closed_at: l.closedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    total_coins: formatAmount(l.totalCoins),
    fee_pool: formatAmount(l.feePool),
    base_fee_in_stroops: Number(l.baseFee),
    base_reserve_in_stroops: Number(l.baseReserve),
    max_tx_set_size: 1000,
    protocol_version: PROTOCOL_VERSION,
  };
};

export const rootRecord = (head: LedgerRow, passphrase: string, base: string): Json => ({
  _links: {
    account: { href: `${base}/accounts/{account_id}`, templated: true },
    claimable_balances: { href: `${base}/claimable_balances{?asset,sponsor,claimant,cursor,limit,order}`, templated: true },
    accounts: { href: `${base}/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}`, templated: true },
    fee_stats: { href: `${base}/fee_stats` },
    friendbot: { href: `${base}/friendbot{?addr}`, templated: true },
    ledger: { href: `${base}/ledgers/{sequence}`, templated: true },
    ledgers: { href: `${base}/ledgers{?cursor,limit,order}`, templated: true },
    operation: { href: `${base}/operations/{id}`, templated: true },
    operations: { href: `${base}/operations{?cursor,limit,order,include_failed}`, templated: true },
    payments: { href: `${base}/payments{?cursor,limit,order,include_failed}`, templated: true },
    self: { href: `${base}/` },
    transaction: { href: `${base}/transactions/{hash}`, templated: true },
    transactions: { href: `${base}/transactions{?cursor,limit,order}`, templated: true },
  },
  horizon_version: HORIZON_VERSION,
  core_version: CORE_VERSION,
  ingest_latest_ledger: head.sequence,
  history_latest_ledger: head.sequence,
  history_latest_ledger_closed_at: head.closedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  history_elder_ledger: 1,
  core_latest_ledger: head.sequence,
  network_passphrase: passphrase,
  current_protocol_version: PROTOCOL_VERSION,
  supported_protocol_version: PROTOCOL_VERSION,
  core_supported_protocol_version: PROTOCOL_VERSION,
});

export const feeStatsRecord = (head: LedgerRow): Json => {
  const fee = head.baseFee.toString();
  const distribution = Object.fromEntries(['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'].map((k) => [k, fee]));
  return {
    last_ledger: String(head.sequence),
    last_ledger_base_fee: fee,
    ledger_capacity_usage: '0.00',
    fee_charged: distribution,
    max_fee: distribution,
  };
};

export interface PageQuery {
  cursor: bigint | null;
  limit: number;
  order: 'asc' | 'desc';
  includeFailed: boolean;
}

/** A Horizon collection page; `path` is the collection's path below the base, without a query string. */
export const page = (records: Json[], q: PageQuery, base: string, path: string): Json => {
  const href = (cursor: string, order: string) => `${base}${path}?cursor=${cursor}&limit=${q.limit}&order=${order}${q.includeFailed ? '&include_failed=true' : ''}`;
  const current = q.cursor === null ? '' : q.cursor.toString();
  const first = records[0]?.paging_token as string | undefined;
  const last = records[records.length - 1]?.paging_token as string | undefined;
  return {
    _links: {
      self: { href: href(current, q.order) },
      next: { href: href(last ?? current, q.order) },
      prev: { href: href(first ?? current, q.order === 'asc' ? 'desc' : 'asc') },
    },
    _embedded: { records },
  };
};
