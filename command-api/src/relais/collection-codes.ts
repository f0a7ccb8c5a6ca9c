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

/** Refuses (429) a host who entered too many wrong codes lately. */
export const requireAttemptsLeft = async (services: Pick<Services, 'knex'>, hostId: string, now: Date): Promise<void> => {
  const since = new Date(now.getTime() - ATTEMPT_WINDOW_MS);
  const rows = (await services.knex(ATTEMPTS_TABLE).where({ host_id: hostId }).andWhere('attempted_at', '>', since).count<{ count: string }[]>({ count: '*' })) as { count: string }[];
  const wrong = Number(rows[0]?.count ?? 0);
  if (wrong >= ATTEMPTS_PER_WINDOW) {
    const oldest = (await services.knex(ATTEMPTS_TABLE).where({ host_id: hostId }).andWhere('attempted_at', '>', since).min({ at: 'attempted_at' }).first()) as { at: Date | null } | undefined;
    const retryAt = oldest?.at ? new Date(oldest.at).getTime() + ATTEMPT_WINDOW_MS : now.getTime() + ATTEMPT_WINDOW_MS;
    throw new RateLimitedError(Math.max(1, Math.ceil((retryAt - now.getTime()) / 1000)), 'relais_collection_codes');
  }
};

/** Counts a wrong code (and forgets the host's attempts older than a day). */
export const recordWrongCode = async (services: Pick<Services, 'knex'>, hostId: string, now: Date): Promise<void> => {
  await services.knex(ATTEMPTS_TABLE).insert({ host_id: hostId, attempted_at: now });
  await services.knex(ATTEMPTS_TABLE).where({ host_id: hostId }).andWhere('attempted_at', '<', new Date(now.getTime() - 86_400_000)).delete();
};

/** The parcel sent to the host whose code this is, or null. */
export const parcelOfCode = async (services: Pick<Services, 'knex' | 'config'>, tenantId: string, hostId: string, code: string): Promise<CollectionRow | null> => {
  const secret = collectionCodeSecret(services);
  const parcels = await new RelaisShipmentsReadModel(services.knex).hostCollections(tenantId, hostId);
  return parcels.find((p) => isCollectionCode(secret, p.reservation_id, code)) ?? null;
};
