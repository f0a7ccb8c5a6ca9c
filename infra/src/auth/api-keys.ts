import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { UnauthorizedError } from '@cagnotte/domain';
import { API_KEY_PATTERN, applyCursor, cursorPage, type ApiKeyAuthenticator, type ApiKeyContext } from '../http/v1';

/** An API key as stored: never its secret, only the secret's SHA-256 and its last four characters. */
export interface ApiKeyRecord {
  id: string;
  seq: string;
  tenantId: string;
  ownerId: string;
  livemode: boolean;
  name: string;
  last4: string;
  scopes: string[];
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  rolledTo: string | null;
}

interface Row {
  secret_hash?: string;
  id: string;
  seq: string;
  tenant_id: string;
  owner_id: string;
  livemode: boolean;
  name: string;
  last4: string;
  scopes: string[];
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  rolled_to: string | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  seq: String(r.seq),
  tenantId: r.tenant_id,
  ownerId: r.owner_id,
  livemode: r.livemode,
  name: r.name,
  last4: r.last4,
  scopes: r.scopes,
  createdBy: r.created_by,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  rolledTo: r.rolled_to,
});

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `sk_<mode>_` and 40 base-62 characters (about 238 bits), drawn without modulo bias. */
const newSecret = (livemode: boolean): string => {
  let out = '';
  while (out.length < 40) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < 40) out += BASE62[b % 62];
    }
  }
  return `sk_${livemode ? 'live' : 'test'}_${out}`;
};

/** The secret is random and long: a fast hash is enough (nothing to brute-force), and the look-up is by the hash. */
export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** How often `last_used_at` is written for one key, at most. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * The keys' storage and their authentication (the HTTP kit's `ApiKeyAuthenticator`). Every request reads its key's
 * row: a revoked key is refused from the next request on, in every process (no cache to expire).
 */
export class ApiKeyStore implements ApiKeyAuthenticator {
  constructor(private readonly knex: Knex) {}

  async create(input: { tenantId: string; ownerId: string; livemode: boolean; name: string; scopes: string[]; createdBy: string }, trx?: Knex.Transaction): Promise<{ key: ApiKeyRecord; secret: string }> {
    const secret = newSecret(input.livemode);
    const [row] = await (trx ?? this.knex)<Row>('api_keys')
      .insert({
        id: randomUUID(),
        tenant_id: input.tenantId,
        owner_id: input.ownerId,
        livemode: input.livemode,
        name: input.name,
        secret_hash: hashApiKey(secret),
        last4: secret.slice(-4),
        scopes: input.scopes,
        created_by: input.createdBy,
      })
      .returning('*');
    return { key: toRecord(row as Row), secret };
  }

  async find(tenantId: string, id: string): Promise<ApiKeyRecord | null> {
    const row = await this.knex<Row>('api_keys').where({ tenant_id: tenantId, id }).first();
    return row ? toRecord(row) : null;
  }

  async findAnywhere(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.knex<Row>('api_keys').where({ id }).first();
    return row ? toRecord(row) : null;
  }

  /** Newest first; `ownerId` narrows to one owner's keys (an organiser sees their own). */
  async list(o: { tenantId: string; ownerId?: string; limit: number; after?: string | null; before?: string | null; includeRevoked?: boolean }): Promise<{ items: ApiKeyRecord[]; hasMore: boolean }> {
    const q = this.knex<Row>('api_keys').where({ tenant_id: o.tenantId });
    if (o.ownerId) q.andWhere({ owner_id: o.ownerId });
    if (!o.includeRevoked) q.whereNull('revoked_at');
    const rows = (await applyCursor(q, { seqColumn: 'seq', limit: o.limit, after: o.after, before: o.before })) as Row[];
    const page = cursorPage(rows, o.limit, o.before);
    return { items: page.items.map(toRecord), hasMore: page.hasMore };
  }

  /** Revokes at once; revoking twice changes nothing. */
  async revoke(id: string, at: Date): Promise<ApiKeyRecord | null> {
    await this.knex<Row>('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: at });
    return this.findAnywhere(id);
  }

  /**
   * A new secret for the same owner, mode, name and scopes; the old one keeps working until `graceUntil` (null: it
   * is revoked now). One transaction: a roll never leaves two successors or none.
   */
  async roll(id: string, o: { graceUntil: Date | null; now: Date; createdBy: string }): Promise<{ key: ApiKeyRecord; secret: string } | null> {
    return this.knex.transaction(async (trx) => {
      const old = await trx<Row>('api_keys').where({ id }).forUpdate().first();
      if (!old || old.revoked_at || old.rolled_to || (old.expires_at && old.expires_at <= o.now)) return null;
      const next = await this.create({ tenantId: old.tenant_id, ownerId: old.owner_id, livemode: old.livemode, name: old.name, scopes: old.scopes, createdBy: o.createdBy }, trx);
      await trx<Row>('api_keys')
        .where({ id })
        .update({ rolled_to: next.key.id, ...(o.graceUntil ? { expires_at: o.graceUntil } : { revoked_at: o.now }) });
      return next;
    });
  }

  async authenticate(secret: string): Promise<ApiKeyContext> {
    if (!API_KEY_PATTERN.test(secret)) throw new UnauthorizedError('Invalid API key', 'api_key_invalid');
    const row = await this.knex<Row>('api_keys')
      .where({ secret_hash: hashApiKey(secret) })
      .whereNull('revoked_at')
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.knex.fn.now()))
      .first('id', 'tenant_id', 'owner_id', 'livemode', 'scopes', 'last_used_at');
    if (!row) throw new UnauthorizedError('Invalid API key: unknown, revoked or expired', 'api_key_invalid');
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_EVERY_MS) {
      // At most once a minute per key. Awaited: a database that cannot take it is an outage (503), not a silent gap.
      await this.knex('api_keys').where({ id: row.id }).update({ last_used_at: this.knex.fn.now() });
    }
    return { id: row.id, tenantId: row.tenant_id, ownerId: row.owner_id, livemode: row.livemode, scopes: row.scopes };
  }
}
