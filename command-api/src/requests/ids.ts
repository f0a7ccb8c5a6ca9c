import { NotFoundError } from '@cagnotte/domain';
import type { Config } from '@cagnotte/infra';
import { uuidOfPublicId } from '@cagnotte/read-models';

// The /v1 ids of this resource (docs/v1.md): `req_` / `acct_` + the uuid's 32 hex digits.

/** `req_…` → the request's uuid; anything else is the 404 of a missing request. */
export const requestIdParam = (id: string): string => {
  const uuid = uuidOfPublicId('req', id);
  if (!uuid) throw new NotFoundError('request');
  return uuid;
};

/** `acct_…` → the account's uuid, or null. */
export const accountIdParam = (id: string): string | null => uuidOfPublicId('acct', id);

/** The mode of a call: its API key's, else the deployment's (a session). */
export const livemodeOf = (ctx: { apiKey?: unknown }, config: Pick<Config, 'APP_ENV'>): boolean => {
  const key = ctx.apiKey as { livemode: boolean } | null | undefined;
  return key ? key.livemode : config.APP_ENV === 'production';
};
