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

const INTERNAL_BASE = 'http://internal.invalid';

/**
 * `path` resolved the way a browser resolves a Location (WHATWG URL: dot segments, `%2e`, a `\` as `/`),
 * or null unless it starts with one `/` and stays a path on this service that does not start with `//`.
 */
const resolveInternal = (path: string): URL | null => {
  if (UNSAFE.test(path) || !path.startsWith('/') || path.startsWith('//')) return null;
  let url: URL;
  try {
    url = new URL(path, INTERNAL_BASE);
  } catch {
    return null;
  }
  if (url.origin !== INTERNAL_BASE || url.pathname.startsWith('//') || url.pathname.includes('\\')) return null;
  return url;
};

/** More layers of percent-encoding than any honest link carries. */
const MAX_DECODING_ROUNDS = 3;

/**
 * `dest` must be a path on this service. It is normalised first (dot segments resolved as a browser would:
 * `/..//evil.example` becomes `//evil.example`), and the normalised form must start with one `/`, never `//`,
 * and carry no scheme, backslash, whitespace or control character; so must every percent-decoding of it (up to
 * three rounds, against double encoding). Answers the normalised path, which is what the Location carries.
 */
export const checkDest = (raw: string): string => {
  const bad = () => reject('dest', 'must be an internal path such as /pools/123');
  const url = resolveInternal(raw);
  if (!url) throw bad();
  let layer = raw;
  for (let round = 0; ; round++) {
    let next: string;
    try {
      next = decodeURIComponent(layer);
    } catch {
      throw reject('dest', 'is not validly percent-encoded');
    }
    if (next === layer) break;
    if (round === MAX_DECODING_ROUNDS || !resolveInternal(next)) throw bad();
    layer = next;
  }
  const normalised = `${url.pathname}${url.search}${url.hash}`;
  // The emitted form must be a fixed point: resolving it again gives itself, so no browser reads it otherwise.
  const again = resolveInternal(normalised);
  if (!again || `${again.pathname}${again.search}${again.hash}` !== normalised) throw bad();
  return normalised;
};
