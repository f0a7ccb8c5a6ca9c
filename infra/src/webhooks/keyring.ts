import { createCipheriv, createDecipheriv, createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Knex } from 'knex';

/** Standard Webhooks prefixes: a symmetric signing secret, and an ed25519 public key. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_PUBLIC_KEY_PREFIX = 'whpk_';
/** Rotation: how long the old secrets keep signing by default, and at most (7 days). */
export const DEFAULT_ROTATION_EXPIRY_SECONDS = 86_400;
export const MAX_ROTATION_EXPIRY_SECONDS = 7 * 86_400;

const CIPHER = 'aes-256-gcm';
const FORMAT = 'v1';

/**
 * The secrets that sign webhook deliveries, encrypted at rest (AES-256-GCM under `WEBHOOK_ENCRYPTION_KEY`).
 *
 * - Each endpoint has one or more symmetric secrets (`whsec_` + base64 of 24 random bytes, Standard Webhooks); a
 *   rotation adds a new one and gives the others an expiry, so both sign until the old one expires.
 * - Each tenant has one ed25519 key pair (created on first use) whose public key (`whpk_…`) it can fetch, so a
 *   partner can verify a delivery without holding a secret of ours.
 *
 * Every ciphertext is bound to its row (the endpoint or tenant id is the GCM additional data): a ciphertext copied
 * into another row does not decrypt.
 */
export class WebhookKeyring {
  private readonly signingKeys = new Map<string, { publicKey: string; privateKey: KeyObject }>();

  constructor(
    private readonly knex: Knex,
    private readonly encryptionKey: Buffer,
  ) {
    if (encryptionKey.length !== 32) throw new Error('the webhook encryption key must be 32 bytes (AES-256)');
  }

  /** A new endpoint's first secret, written in the caller's transaction (beside the endpoint row). */
  async createEndpointSecret(trx: Knex | Knex.Transaction, endpointId: string): Promise<string> {
    const secret = newEndpointSecret();
    await trx('webhook_secrets').insert({ endpoint_id: endpointId, secret_ciphertext: this.encrypt(secret, `endpoint:${endpointId}`) });
    return secret;
  }

  /**
   * Adds a new secret; the endpoint's other secrets sign for `expiresInSeconds` more (0: they stop now). A secret that
   * already expires sooner keeps its earlier expiry: rotating twice never revives an old secret.
   */
  async rotate(trx: Knex | Knex.Transaction, endpointId: string, expiresInSeconds: number, now: Date): Promise<string> {
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 0 || expiresInSeconds > MAX_ROTATION_EXPIRY_SECONDS) {
      throw new RangeError(`expiresInSeconds must be an integer in 0..${MAX_ROTATION_EXPIRY_SECONDS}`);
    }
    const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000);
    await trx('webhook_secrets')
      .where({ endpoint_id: endpointId })
      .update({ expires_at: trx.raw('LEAST(coalesce(expires_at, ?::timestamptz), ?::timestamptz)', [expiresAt, expiresAt]) });
    return this.createEndpointSecret(trx, endpointId);
  }

  /** The secrets that sign at `now`, newest first. */
  async activeSecrets(endpointId: string, now: Date): Promise<string[]> {
    const rows: Array<{ secret_ciphertext: string }> = await this.knex('webhook_secrets')
      .where({ endpoint_id: endpointId })
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .orderBy('id', 'desc')
      .select('secret_ciphertext');
    return rows.map((r) => this.decrypt(r.secret_ciphertext, `endpoint:${endpointId}`));
  }

  /**
   * An endpoint's secrets from ciphertexts its caller already read (the delivery reads them with its claim, in one
   * statement): the same as activeSecrets without the query. The ciphertexts must be the endpoint's own (bound to it).
   */
  endpointSecretsOf(endpointId: string, ciphertexts: readonly string[]): string[] {
    return ciphertexts.map((c) => this.decrypt(c, `endpoint:${endpointId}`));
  }

  /** The tenant's ed25519 key pair, created on first use (two processes creating it at once keep the first one written). */
  async signingKey(tenantId: string): Promise<{ publicKey: string; privateKey: KeyObject }> {
    const cached = this.signingKeys.get(tenantId);
    if (cached) return cached;
    let row: { public_key: string; private_key_ciphertext: string } | undefined = await this.knex('webhook_signing_keys').where({ tenant_id: tenantId }).first();
    if (!row) {
      const pair = generateKeyPairSync('ed25519');
      const publicKey = WEBHOOK_PUBLIC_KEY_PREFIX + Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
      const der = (pair.privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer).toString('base64');
      await this.knex('webhook_signing_keys')
        .insert({ tenant_id: tenantId, public_key: publicKey, private_key_ciphertext: this.encrypt(der, `tenant:${tenantId}`) })
        .onConflict('tenant_id')
        .ignore();
      row = await this.knex('webhook_signing_keys').where({ tenant_id: tenantId }).first();
      if (!row) throw new Error(`the signing key of tenant ${tenantId} vanished`);
    }
    const privateKey = createPrivateKey({ key: Buffer.from(this.decrypt(row.private_key_ciphertext, `tenant:${tenantId}`), 'base64'), format: 'der', type: 'pkcs8' });
    const key = { publicKey: row.public_key, privateKey };
    this.signingKeys.set(tenantId, key);
    return key;
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64 each. */
  private encrypt(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(CIPHER, this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join('.');
  }

  private decrypt(stored: string, boundTo: string): string {
    const [format, iv, tag, ct] = stored.split('.');
    if (format !== FORMAT || !iv || !tag || ct === undefined) throw new Error('unreadable webhook secret ciphertext');
    const decipher = createDecipheriv(CIPHER, this.encryptionKey, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** `whsec_` + base64 of 24 random bytes (Standard Webhooks: 24 to 64 bytes). */
export const newEndpointSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');

/** Decodes `WEBHOOK_ENCRYPTION_KEY` (base64 of 32 bytes). */
export const webhookEncryptionKey = (base64: string): Buffer => {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_ENCRYPTION_KEY must be the base64 of 32 bytes');
  return key;
};
