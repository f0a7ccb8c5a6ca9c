import { ValidationError } from '@cagnotte/domain';
import { isApprovedOrigin } from '@cagnotte/infra';

export const SESSION_COOKIE = 'service_session';

/** First-party session cookie: HttpOnly (no script reads it), Secure + SameSite=None (it works inside a partner's iframe). */
export const sessionCookie = (token: string, maxAgeSeconds: number): string =>
  `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=None`;

const reject = (field: string, message: string) => new ValidationError({ [field]: [message] }, `Invalid ${field}`, 'invalid_redirect');

/** Control characters, whitespace and backslashes have no place in a redirect target: browsers "fix" them into other URLs. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0020\u007f\\]/;

/**
 * `returnTo` must be an absolute http(s) URL whose origin (scheme, host, port) equals one of the tenant's
 * approved origins exactly. No credentials in it. Answers the normalised URL.
 */
export const checkReturnTo = (raw: string, approvedOrigins: string[]): string => {
  if (UNSAFE.test(raw)) throw reject('returnTo', 'must not contain spaces, control characters or backslashes');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw reject('returnTo', 'must be an absolute URL on an approved origin');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw reject('returnTo', 'must use http or https');
  if (url.username || url.password) throw reject('returnTo', 'must not carry credentials');
  if (!isApprovedOrigin(approvedOrigins, url.origin)) throw reject('returnTo', 'is not an approved origin of this tenant');
  return url.toString();
};

/**
 * `dest` must be a path on this service: it starts with one `/`, never `//` or `/\`, carries no scheme,
 * and stays so once percent-decoded (up to three times, against double encoding).
 */
export const checkDest = (raw: string): string => {
  let decoded = raw;
  for (let i = 0; i < 3; i++) {
    if (UNSAFE.test(decoded) || !decoded.startsWith('/') || decoded.startsWith('//')) {
      throw reject('dest', 'must be an internal path such as /pools/123');
    }
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      throw reject('dest', 'is not validly percent-encoded');
    }
    if (next === decoded) break;
    decoded = next;
  }
  const base = 'http://internal.invalid';
  const url = new URL(raw, base);
  if (url.origin !== base) throw reject('dest', 'must be an internal path such as /pools/123');
  return `${url.pathname}${url.search}${url.hash}`;
};
