import { RateLimitedError, type Services } from '@cagnotte/infra';
import { RelaisShipmentsReadModel, isCollectionCode, type CollectionRow } from '@cagnotte/read-models';

// Collection codes at a community host (docs/relais.md). The code is derived from the reservation id by the server
// (read-models/src/relais/collection-code.ts, shared with the buyer's read): nothing secret is stored. A host enters
// the code a buyer tells them; wrong codes are counted per host, at most ATTEMPTS_PER_WINDOW in ATTEMPT_WINDOW_MS
// (429 beyond), so the 10^8 codes cannot be walked through.

export const ATTEMPTS_TABLE = 'relais_collection_attempts';
export const ATTEMPTS_PER_WINDOW = 10;
export const ATTEMPT_WINDOW_MS = 15 * 60_000;

/** The secret the codes derive from: the service's JWT_SECRET (the derivation separates it from the tokens' use). */
export const collectionCodeSecret = (services: Pick<Services, 'config'>): string => services.config.JWT_SECRET!;

/** An entered code, counted against the host's limit until it proves right. */
export interface CodeAttempt {
  /** The code was right: it does not count. */
  forgive(): Promise<void>;
}

/**
 * Counts an entered code against the host's limit before it is checked, or refuses (429) when the host already
 * entered ATTEMPTS_PER_WINDOW codes in the window. The count and the row are one transaction under the host's
 * advisory lock: simultaneous codes cannot all read the same count and go past the limit. A right code is forgiven
 * afterwards, so only wrong ones stay counted (and the host's rows older than a day are forgotten).
 */
export const claimCodeAttempt = async (services: Pick<Services, 'knex'>, hostId: string, now: Date): Promise<CodeAttempt> => {
  const since = new Date(now.getTime() - ATTEMPT_WINDOW_MS);
  const id = await services.knex.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`relais-collection-codes:${hostId}`]);
    const row = (await trx(ATTEMPTS_TABLE).where({ host_id: hostId }).andWhere('attempted_at', '>', since).count<{ count: string }[]>({ count: '*' }).min({ oldest: 'attempted_at' }).first()) as
      | { count: string; oldest: Date | null }
      | undefined;
    if (Number(row?.count ?? 0) >= ATTEMPTS_PER_WINDOW) {
      const retryAt = row?.oldest ? new Date(row.oldest).getTime() + ATTEMPT_WINDOW_MS : now.getTime() + ATTEMPT_WINDOW_MS;
      throw new RateLimitedError(Math.max(1, Math.ceil((retryAt - now.getTime()) / 1000)), 'relais_collection_codes');
    }
    await trx(ATTEMPTS_TABLE).where({ host_id: hostId }).andWhere('attempted_at', '<', new Date(now.getTime() - 86_400_000)).delete();
    const [inserted] = (await trx(ATTEMPTS_TABLE).insert({ host_id: hostId, attempted_at: now }).returning('id')) as Array<{ id: string | number }>;
    return inserted!.id;
  });
  return {
    forgive: async () => {
      await services.knex(ATTEMPTS_TABLE).where({ id }).delete();
    },
  };
};

/** The parcel sent to the host whose code this is, or null. */
export const parcelOfCode = async (services: Pick<Services, 'knex' | 'config'>, tenantId: string, hostId: string, code: string): Promise<CollectionRow | null> => {
  const secret = collectionCodeSecret(services);
  const parcels = await new RelaisShipmentsReadModel(services.knex).hostCollections(tenantId, hostId);
  return parcels.find((p) => isCollectionCode(secret, p.reservation_id, code)) ?? null;
};
