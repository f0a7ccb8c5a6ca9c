import { NotFoundError } from '@cagnotte/domain';
import { fromPrefixedId } from '@cagnotte/infra';

/** `req_…` → the request's uuid; anything else is the 404 of a missing request. */
export const requestIdParam = (id: string): string => {
  const uuid = fromPrefixedId('req', id);
  if (!uuid) throw new NotFoundError('request');
  return uuid;
};

/** `acct_…` → the account's uuid, or null. */
export const accountIdParam = (id: string): string | null => fromPrefixedId('acct', id);
