import { z } from 'zod';

export const Id = z.string().uuid();
export const IsoDate = z.string().datetime({ offset: true });
/** A decimal amount: digits, optional fraction up to 7 places (the Stellar precision). Never a float. */
export const DecimalAmount = z.string().regex(/^(0|[1-9]\d{0,14})(\.\d{1,7})?$/, 'must be a decimal string with at most 7 decimals');
export const Percent = z.string().regex(/^(100(\.0{1,2})?|[1-9]?\d(\.\d{1,2})?)$/, 'must be a percentage from 0 to 100 with at most 2 decimals');
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code');
/** A Stellar account id (ed25519 public key, StrKey "G…"). */
export const StellarAccountId = z.string().regex(/^G[A-Z2-7]{55}$/, 'must be a Stellar account id (G…)');
