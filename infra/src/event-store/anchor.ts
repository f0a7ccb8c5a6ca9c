/**
 * Anchoring: the event log committed to the ledger, so that someone who can write the database (trigger
 * disabled, hashes recomputed, es_streams.last_hash moved) is still caught. Every anchor is one Stellar
 * transaction whose MEMO_HASH is a Merkle root over the previous anchor's root and every event appended
 * since, in feed order. The receipts (es_anchors, es_anchor_leaves) are only claims: `verify` re-reads each
 * transaction from the ledger. Leaf encoding, tree rule and a way to check an anchor without this code:
 * docs/event-store.md, "Anchoring".
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { Account, BASE_FEE, Keypair, Memo, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { Logger } from '../logger';
import { LedgerRejectedError, LedgerUnavailableError, type LedgerGateway } from '../ledger/gateway';
import { InProcessSourceLock, type SourceAccountLock } from '../ledger/source-lock';
import type { SandboxLedger } from '@cagnotte/sandbox-ledger';
import { eventHash, verifyChain, type HashedContent } from './hash-chain';
import { formatPosition, type Position } from './port';

// ---- the tree ------------------------------------------------------------------------------------------

/** The `prev_root` of the first anchor. */
export const GENESIS_ROOT = '0'.repeat(64);

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/**
 * sha256(0x00 ‖ utf8("<streamId>\n<revision>\n<hash>")). The revision is decimal and the hash 64 hex digits,
 * so the encoding is unambiguous even for a stream id that contains a newline (read the last two lines).
 */
export const eventLeaf = (streamId: string, revision: bigint, hash: string): Buffer =>
  sha256(LEAF_PREFIX, Buffer.from(`${streamId}\n${revision.toString()}\n${hash}`, 'utf8'));

/** sha256(0x00 ‖ utf8("anchor\n<previous root hex>")): one newline, so it never equals an event leaf. */
export const previousAnchorLeaf = (prevRoot: string): Buffer => sha256(LEAF_PREFIX, Buffer.from(`anchor\n${prevRoot}`, 'utf8'));

/**
 * The Merkle root: nodes are sha256(0x01 ‖ left ‖ right) over the raw 32-byte digests; a level with an odd
 * number of nodes promotes its last node unchanged (it is never paired with itself, so two different leaf
 * lists never share a root by duplication); a single leaf is its own root.
 */
export const merkleRoot = (leaves: Buffer[]): Buffer => {
  if (leaves.length === 0) throw new Error('a Merkle tree needs at least one leaf');
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256(NODE_PREFIX, level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
};

export interface AnchorLeafInput {
  streamId: string;
  revision: bigint;
  hash: string;
}

/** The root (hex) an anchor commits to: its previous root first, then its events in feed order. */
export const anchorRoot = (prevRoot: string, events: AnchorLeafInput[]): string =>
  merkleRoot([previousAnchorLeaf(prevRoot), ...events.map((e) => eventLeaf(e.streamId, e.revision, e.hash))]).toString('hex');

// ---- the ledger, as anchoring needs it ------------------------------------------------------------------

/** The fields of a Horizon transaction record that an anchor is checked by. */
export interface LedgerTransactionRecord {
  hash: string;
  ledger: number;
  created_at: string;
  successful: boolean;
  source_account: string;
  memo_type: string;
  memo?: string;
  paging_token: string;
}

/** What anchoring needs from a Stellar network: the sandbox in this process, or any Horizon. */
export interface AnchorLedger {
  /** The account's sequence number, or null when it does not exist. */
  sequence(accountId: string): Promise<string | null>;
  /** Creates the account when the network can (the sandbox's friendbot); false when it cannot. */
  fund(accountId: string): Promise<boolean>;
  /** Throws LedgerRejectedError (refused, nothing applied) or LedgerUnavailableError (may still land). */
  submit(tx: Transaction): Promise<{ hash: string; ledger: number }>;
  /** GET /transactions/{hash}; null while the ledger does not show it. */
  transaction(hash: string): Promise<LedgerTransactionRecord | null>;
  /** GET /accounts/{id}/transactions?order=asc&cursor=…&limit=…: one page of the account's successful transactions, oldest first. */
  accountTransactions(accountId: string, page: { cursor: string | null; limit: number }): Promise<LedgerTransactionRecord[]>;
}

/** Horizon's JSON and the SDK's record differ on `ledger` (the SDK turns it into a link and keeps `ledger_attr`). */
const plainRecord = (r: Record<string, unknown>): LedgerTransactionRecord => ({
  hash: String(r.hash),
  ledger: Number(typeof r.ledger === 'number' ? r.ledger : r.ledger_attr),
  created_at: String(r.created_at),
  successful: r.successful === true,
  source_account: String(r.source_account),
  memo_type: String(r.memo_type),
  paging_token: String(r.paging_token),
  ...(typeof r.memo === 'string' ? { memo: r.memo } : {}),
});

type HorizonError = { response?: { status?: number; data?: { extras?: { result_codes?: { transaction?: string; operations?: string[] } } } } };
const statusOf = (e: unknown): number | undefined => (e as HorizonError | null)?.response?.status;
const unavailable = (e: unknown) => new LedgerUnavailableError(`the ledger (Horizon) is unavailable: ${(e as Error | null)?.message ?? String(e)}`);

/** Any Horizon (testnet, public, or the sandbox over HTTP), through the gateway's Horizon.Server. */
export const horizonAnchorLedger = (gateway: LedgerGateway): AnchorLedger => ({
  async sequence(accountId) {
    const account = await gateway.loadAccount(accountId);
    return account ? account.sequenceNumber() : null;
  },
  fund: async () => false,
  submit: (tx) => gateway.submit(tx),
  async transaction(hash) {
    try {
      return plainRecord((await gateway.server.transactions().transaction(hash).call()) as unknown as Record<string, unknown>);
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw unavailable(e);
    }
  },
  async accountTransactions(accountId, { cursor, limit }) {
    try {
      const query = gateway.server.transactions().forAccount(accountId).order('asc').limit(limit);
      const page = await (cursor ? query.cursor(cursor) : query).call();
      return (page.records as unknown as Array<Record<string, unknown>>).map(plainRecord);
    } catch (e) {
      if (statusOf(e) === 404) return [];
      throw unavailable(e);
    }
  },
});

/** The sandbox network of this deployment, called in process (the same records it serves at /sandbox/horizon). */
export const sandboxAnchorLedger = (sandbox: SandboxLedger): AnchorLedger => ({
  async sequence(accountId) {
    const record = await sandbox.account(accountId);
    return record ? String(record.sequence) : null;
  },
  async fund(accountId) {
    const result = await sandbox.friendbot(accountId);
    return result.ok;
  },
  async submit(tx) {
    const result = await sandbox.submit(tx.toEnvelope().toXDR('base64'));
    if (!result.ok) throw new LedgerRejectedError(result.status, result.resultCodes ?? {});
    return { hash: result.hash, ledger: result.ledger };
  },
  async transaction(hash) {
    const record = await sandbox.transaction(hash);
    return record ? plainRecord(record) : null;
  },
  async accountTransactions(accountId, { cursor, limit }) {
    const page = await sandbox.transactions({ cursor: cursor === null ? null : BigInt(cursor), limit, order: 'asc', includeFailed: false }, { account: accountId });
    return (page._embedded as { records: Array<Record<string, unknown>> }).records.map(plainRecord);
  },
});

// ---- receipts and reports -------------------------------------------------------------------------------

export interface AnchorReceipt {
  anchorId: bigint;
  prevRoot: string;
  root: string;
  leafCount: number;
  from: Position;
  to: Position;
  networkPassphrase: string;
  sourceAccount: string;
  txHash: string;
  status: 'pending' | 'anchored';
  ledger: number | null;
  ledgerClosedAt: Date | null;
  createdAt: Date;
}

export type AnchorRunResult =
  | { status: 'anchored'; anchors: AnchorReceipt[] }
  | { status: 'nothing_to_anchor'; anchors: [] }
  /** Another process holds the anchoring lock: it is anchoring now. */
  | { status: 'busy'; anchors: [] };

export interface ForgedEvent {
  streamId: string;
  revision: bigint;
  eventId: string;
  /** `commit-prepare`, as positions are printed elsewhere. */
  position: string;
  anchorId: bigint;
  reason: string;
}

export interface ReceiptCheck {
  anchorId: bigint;
  txHash: string;
  status: 'verified' | 'forged' | 'pending' | 'unverifiable';
  problems: string[];
}

export interface StreamReport {
  streamId: string;
  ok: boolean;
  /** Events read from the store. */
  checked: number;
  /** The plain hash-chain check over the stored hashes (what `verifyStream` answers). */
  chain: { ok: true } | { ok: false; brokenAt: bigint; reason: string };
  /** Events matched against a verified anchor. */
  anchored: number;
  /** Events appended after the last verified anchor: only the plain chain vouches for them. */
  notYetAnchored: number;
  firstForged: ForgedEvent | null;
}

export interface AnchoredVerifyReport {
  anchors: {
    total: number;
    verified: number;
    pending: number;
    problems: ReceiptCheck[];
    /** Anchor transactions the ledger shows for the anchoring account that have no receipt. */
    missingReceipts: string[];
    latest: { anchorId: bigint; root: string; txHash: string; ledger: number | null; closedAt: Date | null; to: string } | null;
  };
  streams: number;
  /** Streams that are not ok: a broken chain or a forged event. */
  broken: number;
  forged: number;
  notYetAnchored: number;
  /** The forged event with the lowest feed position, over every stream checked. */
  firstForged: ForgedEvent | null;
  results: StreamReport[];
  ok: boolean;
}

/** bigint columns arrive as decimal strings (db/database.ts), xid8 ones as `*_text`: both become BigInt before any comparison. */
interface ReceiptRow {
  anchor_id: string;
  prev_root: string;
  root: string;
  leaf_count: number;
  from_commit_text: string;
  from_prepare: string;
  to_commit_text: string;
  to_prepare: string;
  network_passphrase: string;
  source_account: string;
  tx_hash: string;
  envelope_xdr: string;
  status: 'pending' | 'anchored';
  ledger: number | null;
  ledger_closed_at: Date | null;
  created_at: Date;
}

// Numbers are selected as themselves, so that every ORDER BY below sorts numbers; an xid8 is carried as text under
// a name of its own (`*_text`), which no sort key can take by mistake.
const RECEIPT_COLUMNS = `anchor_id, prev_root, root, leaf_count, from_commit::text AS from_commit_text, from_prepare, to_commit::text AS to_commit_text, to_prepare,
  network_passphrase, source_account, tx_hash, envelope_xdr, status, ledger, ledger_closed_at, created_at`;

const toReceipt = (r: ReceiptRow): AnchorReceipt => ({
  anchorId: BigInt(r.anchor_id),
  prevRoot: r.prev_root,
  root: r.root,
  leafCount: r.leaf_count,
  from: { commit: BigInt(r.from_commit_text), prepare: BigInt(r.from_prepare) },
  to: { commit: BigInt(r.to_commit_text), prepare: BigInt(r.to_prepare) },
  networkPassphrase: r.network_passphrase,
  sourceAccount: r.source_account,
  txHash: r.tx_hash,
  status: r.status,
  ledger: r.ledger,
  ledgerClosedAt: r.ledger_closed_at,
  createdAt: r.created_at,
});

interface EventRow {
  global_position: string;
  commit_text: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  prev_hash: string | null;
  hash: string;
}

const EVENT_COLUMNS =
  'global_position, transaction_id::text AS commit_text, stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash';

const content = (r: EventRow): HashedContent => ({
  streamId: r.stream_id,
  revision: BigInt(r.stream_revision),
  id: r.event_id,
  type: r.type,
  schemaVersion: r.schema_version,
  data: r.data,
  metadata: r.metadata,
});

/** pg_try_advisory_lock(class, 0): one process anchors at a time. */
const LOCK_CLASS = 0x45414e43; // 'EANC'

export interface EventAnchorOptions {
  pool: pg.Pool;
  ledger: AnchorLedger;
  /** Signs anchors. Verification needs only its public key. */
  keypair: Keypair;
  networkPassphrase: string;
  logger?: Logger;
  /** Events per anchor (default 20,000); a longer backlog takes several anchors. */
  maxLeaves?: number;
  /** Anchors per `anchorNow` (default 50). */
  maxAnchorsPerRun?: number;
  /** Transactions per ledger request when `verify` lists the anchoring account's history (default 200, Horizon's maximum). */
  ledgerPageSize?: number;
  /** Turns per source account, shared with the ledger gateway (PostgresSourceLock in a deployment); in-process by default. */
  sourceLock?: SourceAccountLock;
  /** The service's clock, which the anchor's time bound follows (the sandbox network's may run ahead); the system's by default. */
  clock?: () => Date;
}

/** Seconds an anchor transaction stays valid: a receipt left pending longer is dropped and rebuilt. */
const ANCHOR_TX_TTL_SECONDS = 300;

export class EventAnchor {
  private readonly pool: pg.Pool;
  private readonly sourceLock: SourceAccountLock;
  readonly account: string;

  constructor(private readonly options: EventAnchorOptions) {
    this.pool = options.pool;
    this.account = options.keypair.publicKey();
    this.sourceLock = options.sourceLock ?? new InProcessSourceLock();
  }

  // ---- anchoring -------------------------------------------------------------------------------------

  /**
   * Anchors every event the feed shows after the last anchor (in batches of `maxLeaves`). Nothing new: no
   * transaction. Another process anchoring: 'busy'. A receipt left pending by a crash is settled first.
   */
  async anchorNow(onProgress?: (eventsAnchored: number) => void): Promise<AnchorRunResult> {
    const client = await this.pool.connect();
    try {
      const locked = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, 0) AS ok', [LOCK_CLASS])).rows[0]!.ok;
      if (!locked) return { status: 'busy', anchors: [] };
      try {
        await this.settlePending(client);
        const anchors: AnchorReceipt[] = [];
        const maxLeaves = this.options.maxLeaves ?? 20_000;
        for (let i = 0; i < (this.options.maxAnchorsPerRun ?? 50); i++) {
          const receipt = await this.anchorBatch(client, maxLeaves);
          if (!receipt) break;
          anchors.push(receipt);
          onProgress?.(anchors.reduce((n, a) => n + a.leafCount, 0));
          if (receipt.leafCount < maxLeaves) break;
        }
        return anchors.length > 0 ? { status: 'anchored', anchors } : { status: 'nothing_to_anchor', anchors: [] };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, 0)', [LOCK_CLASS]);
      }
    } finally {
      client.release();
    }
  }

  /** A pending receipt (written before its transaction was submitted) is confirmed from the ledger, resubmitted, or dropped. */
  private async settlePending(client: pg.PoolClient): Promise<void> {
    const pending = (await client.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM es_anchors WHERE status = 'pending' ORDER BY anchor_id`)).rows;
    for (const row of pending) {
      let record = await this.options.ledger.transaction(row.tx_hash);
      if (!record) {
        try {
          const tx = TransactionBuilder.fromXDR(row.envelope_xdr, this.options.networkPassphrase) as Transaction;
          await this.options.ledger.submit(tx);
          record = await this.options.ledger.transaction(row.tx_hash);
        } catch (e) {
          if (!(e instanceof LedgerRejectedError)) throw e;
        }
      }
      if (record?.successful) await this.confirm(client, BigInt(row.anchor_id), record);
      else {
        this.options.logger?.warn({ anchorId: row.anchor_id, txHash: row.tx_hash }, 'anchor: a pending anchor never landed; it is dropped and its events anchored again');
        await client.query('DELETE FROM es_anchors WHERE anchor_id = $1', [row.anchor_id]);
      }
    }
  }

  private async confirm(client: pg.PoolClient, anchorId: bigint, record: LedgerTransactionRecord): Promise<AnchorReceipt> {
    const r = await client.query<ReceiptRow>(
      `UPDATE es_anchors SET status = 'anchored', ledger = $2, ledger_closed_at = $3, anchored_at = now()
       WHERE anchor_id = $1 RETURNING ${RECEIPT_COLUMNS}`,
      [anchorId.toString(), record.ledger, record.created_at],
    );
    return toReceipt(r.rows[0]!);
  }

  private async anchorBatch(client: pg.PoolClient, maxLeaves: number): Promise<AnchorReceipt | null> {
    const last = (
      await client.query<{ anchor_id: string; root: string; to_commit_text: string; to_prepare: string }>(
        `SELECT anchor_id, root, to_commit::text AS to_commit_text, to_prepare FROM es_anchors ORDER BY anchor_id DESC LIMIT 1`,
      )
    ).rows[0];
    // The feed's own rule (docs/event-store.md): only transactions below the snapshot's xmin, so no event that
    // commits later can sort before the end of this anchor.
    const events = (
      await client.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM es_events
         WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
           AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY transaction_id, global_position LIMIT $3`,
        [last?.to_commit_text ?? '0', last?.to_prepare ?? '0', maxLeaves],
      )
    ).rows;
    if (events.length === 0) return null;
    // An event whose content no longer gives its stored hash is anchored with the stored hash all the same: the
    // anchor then commits to the hash, not to the edited content, so verify keeps naming it (and anchoring is
    // never blocked by one bad row). It is logged at once.
    for (const e of events) {
      if (eventHash(e.prev_hash, content(e)) !== e.hash) {
        this.options.logger?.error(
          { streamId: e.stream_id, revision: e.stream_revision, eventId: e.event_id },
          'anchor: an event does not match its stored hash; anchored with the stored hash, verify will report it',
        );
      }
    }
    const prevRoot = last?.root ?? GENESIS_ROOT;
    const root = anchorRoot(prevRoot, events.map((e) => ({ streamId: e.stream_id, revision: BigInt(e.stream_revision), hash: e.hash })));

    // The anchoring account's turn (docs/ledger-sequence.md), from reading its sequence until the ledger answered:
    // with ANCHOR_SIGNING_SECRET set to the platform's key, anchors draw from the platform's sequence too.
    const { anchorId, txHash } = await this.sourceLock.hold(this.account, async () => {
      let sequence = await this.options.ledger.sequence(this.account);
      if (sequence === null && (await this.options.ledger.fund(this.account))) sequence = await this.options.ledger.sequence(this.account);
      if (sequence === null) throw new Error(`the anchoring account ${this.account} does not exist on the ledger: fund it (ANCHOR_SIGNING_SECRET's account)`);
      // bumpSequence to 0 never changes anything (a sequence only moves up): the transaction exists for its memo.
      const maxTime = Math.floor((this.options.clock?.() ?? new Date()).getTime() / 1000) + ANCHOR_TX_TTL_SECONDS;
      const tx = new TransactionBuilder(new Account(this.account, sequence), { fee: BASE_FEE, networkPassphrase: this.options.networkPassphrase, timebounds: { minTime: 0, maxTime } })
        .addOperation(Operation.bumpSequence({ bumpTo: '0' }))
        .addMemo(Memo.hash(root))
        .build();
      tx.sign(this.options.keypair);
      const txHash = Buffer.from(tx.hash()).toString('hex');
      const anchorId = BigInt(last?.anchor_id ?? '0') + 1n;
      const first = events[0]!;
      const end = events[events.length - 1]!;

      // The receipt is written (pending) before the submission, so that a crash in between is settled next time.
      await client.query('BEGIN');
      try {
        await client.query(
          `INSERT INTO es_anchors (anchor_id, prev_root, root, leaf_count, from_commit, from_prepare, to_commit, to_prepare,
             network_passphrase, source_account, tx_hash, envelope_xdr, status)
           VALUES ($1, $2, $3, $4, $5::text::xid8, $6, $7::text::xid8, $8, $9, $10, $11, $12, 'pending')`,
          [
            anchorId.toString(), prevRoot, root, events.length, first.commit_text, first.global_position, end.commit_text, end.global_position,
            this.options.networkPassphrase, this.account, txHash, tx.toEnvelope().toXDR('base64'),
          ],
        );
        await client.query(
          `INSERT INTO es_anchor_leaves (anchor_id, leaf_index, stream_id, stream_revision, event_id, transaction_id, global_position, hash)
           SELECT $1, i, s, r, e, c::xid8, p, h
           FROM unnest($2::int[], $3::text[], $4::bigint[], $5::uuid[], $6::text[], $7::bigint[], $8::text[]) AS x(i, s, r, e, c, p, h)`,
          [
            anchorId.toString(),
            events.map((_, i) => i + 1),
            events.map((e) => e.stream_id),
            events.map((e) => e.stream_revision),
            events.map((e) => e.event_id),
            events.map((e) => e.commit_text),
            events.map((e) => e.global_position),
            events.map((e) => e.hash),
          ],
        );
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }

      try {
        await this.options.ledger.submit(tx);
      } catch (e) {
        if (e instanceof LedgerRejectedError) await client.query('DELETE FROM es_anchors WHERE anchor_id = $1', [anchorId.toString()]);
        throw e; // unavailable: the receipt stays pending and the next run settles it
      }
      return { anchorId, txHash };
    });
    const record = await this.options.ledger.transaction(txHash);
    if (!record) throw new LedgerUnavailableError(`anchor ${anchorId}: transaction ${txHash} was accepted but the ledger does not show it yet`);
    const receipt = await this.confirm(client, anchorId, record);
    this.options.logger?.info({ anchorId: anchorId.toString(), root, events: events.length, txHash, ledger: receipt.ledger }, 'anchor: event log anchored on the ledger');
    return receipt;
  }

  async receipts(options: { limit?: number } = {}): Promise<AnchorReceipt[]> {
    const r = await this.pool.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM es_anchors ORDER BY anchor_id DESC LIMIT $1`, [options.limit ?? 100]);
    return r.rows.map(toReceipt);
  }

  async receipt(anchorId: bigint): Promise<AnchorReceipt | null> {
    const r = await this.pool.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM es_anchors WHERE anchor_id = $1`, [anchorId.toString()]);
    return r.rows[0] ? toReceipt(r.rows[0]) : null;
  }

  /** The leaves of one anchor in tree order, as an auditor exports them (docs/event-store.md). */
  async leaves(anchorId: bigint): Promise<Array<{ streamId: string; revision: bigint; eventId: string; position: string; hash: string }>> {
    const r = await this.pool.query<{ stream_id: string; stream_revision: string; event_id: string; commit_text: string; global_position: string; hash: string }>(
      `SELECT stream_id, stream_revision, event_id, transaction_id::text AS commit_text, global_position, hash
       FROM es_anchor_leaves WHERE anchor_id = $1 ORDER BY leaf_index`,
      [anchorId.toString()],
    );
    return r.rows.map((l) => ({
      streamId: l.stream_id,
      revision: BigInt(l.stream_revision),
      eventId: l.event_id,
      position: `${l.commit_text}-${l.global_position}`,
      hash: l.hash,
    }));
  }

  // ---- verification ----------------------------------------------------------------------------------

  /**
   * Checks every receipt against the ledger, then every stream (all of them, or those named) against the
   * verified anchors: each anchored event is recomputed from its content along its stream's chain and must
   * give the hash the anchor committed to. Names the first forged event of each stream and overall.
   */
  async verify(streams: string[] | 'all', onProgress?: (done: number, total: number) => void): Promise<AnchoredVerifyReport> {
    const receipts = await this.checkReceipts();
    const trusted = receipts.trusted.map((id) => id.toString());
    const ids =
      streams === 'all'
        ? (
            await this.pool.query<{ stream_id: string }>(
              `SELECT stream_id FROM es_streams WHERE revision >= 0 UNION SELECT DISTINCT stream_id FROM es_anchor_leaves ORDER BY stream_id`,
            )
          ).rows.map((r) => r.stream_id)
        : streams;
    const results: StreamReport[] = [];
    for (const id of ids) {
      results.push(await this.verifyStream(id, trusted));
      onProgress?.(results.length, ids.length);
    }
    const forged = results.map((r) => r.firstForged).filter((f): f is ForgedEvent => f !== null);
    const byPosition = (f: ForgedEvent) => f.position.split('-').map((x) => BigInt(x)) as [bigint, bigint];
    const firstForged =
      forged.sort((a, b) => {
        const [ac, ap] = byPosition(a);
        const [bc, bp] = byPosition(b);
        return ac < bc ? -1 : ac > bc ? 1 : ap < bp ? -1 : ap > bp ? 1 : 0;
      })[0] ?? null;
    const broken = results.filter((r) => !r.ok).length;
    return {
      anchors: receipts.summary,
      streams: results.length,
      broken,
      forged: forged.length,
      notYetAnchored: results.reduce((n, r) => n + r.notYetAnchored, 0),
      firstForged,
      results,
      ok: broken === 0 && receipts.summary.problems.length === 0 && receipts.summary.missingReceipts.length === 0,
    };
  }

  private async checkReceipts(): Promise<{ trusted: bigint[]; summary: AnchoredVerifyReport['anchors'] }> {
    const rows = (await this.pool.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM es_anchors ORDER BY anchor_id`)).rows.map((r) => ({ row: r, receipt: toReceipt(r) }));
    const checks: ReceiptCheck[] = [];
    const trusted: bigint[] = [];
    // Every transaction of the anchoring account, 200 per request (Horizon's page limit), instead of one
    // request per receipt; a receipt whose transaction is not among them is looked up by hash.
    let onLedger: Map<string, LedgerTransactionRecord> | null = new Map();
    try {
      const limit = this.options.ledgerPageSize ?? 200;
      for (let cursor: string | null = null; ; ) {
        const page = await this.options.ledger.accountTransactions(this.account, { cursor, limit });
        for (const t of page) onLedger.set(t.hash, t);
        if (page.length < limit) break;
        cursor = page[page.length - 1]!.paging_token;
      }
    } catch (e) {
      onLedger = null;
      checks.push({ anchorId: 0n, txHash: '', status: 'unverifiable', problems: [`the anchoring account's transactions could not be listed: ${(e as Error).message}`] });
    }
    let expectedPrev = GENESIS_ROOT;
    let latest: AnchoredVerifyReport['anchors']['latest'] = null;
    for (const { receipt } of rows) {
      const check: ReceiptCheck = { anchorId: receipt.anchorId, txHash: receipt.txHash, status: 'verified', problems: [] };
      checks.push(check);
      if (receipt.status === 'pending') {
        check.status = 'pending';
        continue;
      }
      const leaves = await this.leaves(receipt.anchorId);
      const recomputed = anchorRoot(receipt.prevRoot, leaves);
      if (leaves.length !== receipt.leafCount) check.problems.push(`the receipt says ${receipt.leafCount} leaves, the table holds ${leaves.length}`);
      if (recomputed !== receipt.root) check.problems.push('the stored leaves do not hash to the stored root');
      if (receipt.prevRoot !== expectedPrev) check.problems.push('prev_root is not the root of the previous anchor: an anchor was removed, edited or reordered');
      if (receipt.networkPassphrase !== this.options.networkPassphrase) {
        check.status = 'unverifiable';
        check.problems.push(`anchored on another network (${receipt.networkPassphrase}): cannot be checked against this ledger`);
        expectedPrev = receipt.root;
        continue;
      }
      let record: LedgerTransactionRecord | null;
      try {
        record = onLedger?.get(receipt.txHash) ?? (await this.options.ledger.transaction(receipt.txHash));
      } catch (e) {
        check.status = 'unverifiable';
        check.problems.push(`the ledger could not be read: ${(e as Error).message}`);
        expectedPrev = receipt.root;
        continue;
      }
      const memo = record?.memo_type === 'hash' && record.memo ? Buffer.from(record.memo, 'base64').toString('hex') : null;
      if (!record) check.problems.push(`transaction ${receipt.txHash} is not on the ledger`);
      else {
        if (!record.successful) check.problems.push('the anchor transaction failed on the ledger');
        if (record.source_account !== this.account) check.problems.push(`the transaction was signed by ${record.source_account}, not the anchoring account ${this.account}`);
        if (memo === null) check.problems.push('the transaction carries no MEMO_HASH');
        else {
          if (memo !== receipt.root) check.problems.push(`the receipt's root ${receipt.root} differs from the ledger memo ${memo}`);
          if (memo !== recomputed) check.problems.push(`the root recomputed from the stored leaves ${recomputed} differs from the ledger memo ${memo}`);
        }
      }
      // The leaves are trusted when they hash to what the ledger holds, whatever the receipt's other columns say.
      if (record?.successful && record.source_account === this.account && memo === recomputed) trusted.push(receipt.anchorId);
      if (check.problems.length > 0) check.status = 'forged';
      expectedPrev = memo ?? receipt.root;
      latest = { anchorId: receipt.anchorId, root: receipt.root, txHash: receipt.txHash, ledger: receipt.ledger, closedAt: receipt.ledgerClosedAt, to: formatPosition(receipt.to) };
    }
    // Deleting the newest receipts would make their events look "not yet anchored": the ledger lists them.
    const known = new Set(rows.map((r) => r.receipt.txHash));
    const missingReceipts = [...(onLedger?.values() ?? [])].filter((t) => t.successful && t.memo_type === 'hash' && !known.has(t.hash)).map((t) => t.hash);
    return {
      trusted,
      summary: {
        total: rows.length,
        verified: checks.filter((c) => c.status === 'verified').length,
        pending: checks.filter((c) => c.status === 'pending').length,
        problems: checks.filter((c) => c.problems.length > 0),
        missingReceipts,
        latest,
      },
    };
  }

  private async verifyStream(streamId: string, trusted: string[]): Promise<StreamReport> {
    const events = (await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM es_events WHERE stream_id = $1 ORDER BY stream_revision`, [streamId])).rows;
    const chain = verifyChain(
      streamId,
      events.map((e) => ({ ...content(e), hash: e.hash, prevHash: e.prev_hash })),
    );
    const leaves = (
      await this.pool.query<{ anchor_id: string; stream_revision: string; event_id: string; commit_text: string; global_position: string; hash: string }>(
        `SELECT anchor_id, stream_revision, event_id, transaction_id::text AS commit_text, global_position, hash
         FROM es_anchor_leaves WHERE stream_id = $1 AND anchor_id = ANY($2::bigint[]) ORDER BY stream_revision, anchor_id`,
        [streamId, trusted],
      )
    ).rows;
    const problems: ForgedEvent[] = [];
    const anchoredAt = new Map<string, (typeof leaves)[number]>();
    for (const l of leaves) {
      const seen = anchoredAt.get(l.stream_revision);
      if (seen) {
        problems.push({
          streamId, revision: BigInt(l.stream_revision), eventId: l.event_id, position: `${l.commit_text}-${l.global_position}`, anchorId: BigInt(l.anchor_id),
          reason: `revision anchored twice (anchors ${seen.anchor_id} and ${l.anchor_id})`,
        });
      } else anchoredAt.set(l.stream_revision, l);
    }
    // Recompute every hash from content along the stream, ignoring the stored hashes, and compare with the anchors.
    let prev: string | null = null;
    let anchored = 0;
    let lastAnchoredRevision = -1n;
    for (const l of leaves) if (BigInt(l.stream_revision) > lastAnchoredRevision) lastAnchoredRevision = BigInt(l.stream_revision);
    const present = new Set<string>();
    for (const e of events) {
      present.add(e.stream_revision);
      const recomputed = eventHash(prev, content(e));
      prev = recomputed;
      const leaf = anchoredAt.get(e.stream_revision);
      const at = { streamId, revision: BigInt(e.stream_revision), eventId: e.event_id, position: `${e.commit_text}-${e.global_position}` };
      if (!leaf) {
        if (BigInt(e.stream_revision) < lastAnchoredRevision) problems.push({ ...at, anchorId: 0n, reason: 'not in any anchor although later events of the stream are: inserted after anchoring' });
        continue;
      }
      anchored++;
      if (leaf.event_id !== e.event_id) problems.push({ ...at, anchorId: BigInt(leaf.anchor_id), reason: `the anchor holds event ${leaf.event_id} at this revision` });
      else if (leaf.hash !== recomputed) problems.push({ ...at, anchorId: BigInt(leaf.anchor_id), reason: 'its content (or an earlier event of the stream) differs from what was anchored' });
    }
    for (const [revision, l] of anchoredAt) {
      if (!present.has(revision)) {
        problems.push({
          streamId, revision: BigInt(revision), eventId: l.event_id, position: `${l.commit_text}-${l.global_position}`, anchorId: BigInt(l.anchor_id),
          reason: 'anchored but missing from the store: deleted',
        });
      }
    }
    problems.sort((a, b) => (a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0));
    const firstForged = problems[0] ?? null;
    return {
      streamId,
      ok: chain.ok && firstForged === null,
      checked: events.length,
      chain: chain.ok ? { ok: true } : { ok: false, brokenAt: chain.brokenAt, reason: chain.reason },
      anchored,
      notYetAnchored: events.filter((e) => BigInt(e.stream_revision) > lastAnchoredRevision).length,
      firstForged,
    };
  }
}
