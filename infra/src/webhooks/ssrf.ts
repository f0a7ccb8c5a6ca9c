import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * The guard against server-side request forgery for webhook URLs (docs/webhooks.md, "SSRF rules").
 *
 * A URL is checked twice: its syntax when an endpoint is created or its URL changes (`checkWebhookUrl`), and its
 * address at every delivery (`resolvePublicAddress`): the delivery connects to the address that was checked, so a
 * name that resolves to a public address at the check and to 127.0.0.1 a moment later (DNS rebinding) never reaches
 * the inside. In production only public unicast addresses pass. The sandbox adds loopback, so a partner can point an
 * endpoint at their own machine (`http://localhost:…`), and the service's own inbox; private, link-local (the cloud
 * metadata address 169.254.169.254), CGNAT and the other inside ranges stay refused there too: a sandbox runs inside
 * someone's network as well.
 *
 * URLs are parsed by the WHATWG parser, which normalises every spelling of an IPv4 address (`http://2130706433/`,
 * `http://0x7f.1/`, `http://0177.0.0.1/`) to dotted decimal before the address is classified.
 */
export interface WebhookUrlOptions {
  production: boolean;
  /** Sandbox only: `http://` to a loopback host (localhost, 127.0.0.0/8, ::1). */
  allowLoopbackHttp?: boolean;
  /** Sandbox only: the service's own inbox (`http://host:port/sandbox/webhook-inbox/`), allowed over http. */
  sandboxInboxBase?: string;
}

export type WebhookUrlCheck = { ok: true; url: URL; sandboxInbox: boolean } | { ok: false; problem: string };

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The URL's own rules, without DNS: syntax, scheme, credentials, literal addresses and names that are never public. */
export const checkWebhookUrl = (raw: string, o: WebhookUrlOptions): WebhookUrlCheck => {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, problem: `a URL is at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'the URL must be https://' };
  if (url.username || url.password) return { ok: false, problem: 'a webhook URL carries no user name or password' };
  if (!url.hostname) return { ok: false, problem: 'the URL has no host' };
  const host = hostOf(url);
  const sandboxInbox = !o.production && !!o.sandboxInboxBase && isUnder(url, o.sandboxInboxBase);
  if (url.protocol === 'http:') {
    if (o.production) return { ok: false, problem: 'the URL must be https:// in production' };
    const loopback = isLoopbackName(host) || (isIP(host) !== 0 && isLoopbackAddress(host));
    if (!sandboxInbox && !(o.allowLoopbackHttp && loopback)) {
      return { ok: false, problem: 'the URL must be https:// (the sandbox allows http:// only to localhost and to the sandbox inbox)' };
    }
  }
  if (!o.production && !sandboxInbox && isIP(host) !== 0 && !isPublicAddress(host) && !isLoopbackAddress(host)) {
    return { ok: false, problem: 'the URL must not point to a private or link-local address (the sandbox allows loopback and public addresses)' };
  }
  if (o.production) {
    if (isLoopbackName(host) || host.endsWith('.local') || host.endsWith('.internal') || !host.includes('.') && isIP(host) === 0) {
      return { ok: false, problem: 'the URL must name a public host' };
    }
    if (isIP(host) !== 0 && !isPublicAddress(host)) return { ok: false, problem: 'the URL must not point to a private, loopback or link-local address' };
  }
  return { ok: true, url, sandboxInbox };
};

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

export class UnsafeWebhookAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeWebhookAddressError';
  }
}

/**
 * The address a delivery connects to. In production every address the name resolves to must be public (a name with
 * one private address among public ones is refused: the resolver's order must not decide); throws
 * `UnsafeWebhookAddressError` otherwise, or when the name does not resolve.
 */
export const resolvePublicAddress = async (
  host: string,
  o: { production: boolean; resolver?: Resolver; /** the service's own sandbox inbox: its own address, whatever it is */ sandboxInbox?: boolean },
): Promise<{ address: string; family: 4 | 6 }> => {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(bare) !== 0) addresses = [{ address: bare, family: isIP(bare) }];
  else {
    try {
      addresses = await (o.resolver ?? systemResolver)(bare);
    } catch (e) {
      throw new UnsafeWebhookAddressError(`${bare} does not resolve (${(e as { code?: string }).code ?? (e as Error).message})`);
    }
  }
  if (addresses.length === 0) throw new UnsafeWebhookAddressError(`${bare} does not resolve`);
  if (o.production) {
    const inside = addresses.find((a) => !isPublicAddress(a.address));
    if (inside) throw new UnsafeWebhookAddressError(`${bare} resolves to ${inside.address}, a private, loopback or link-local address`);
  } else if (!o.sandboxInbox) {
    const inside = addresses.find((a) => !isPublicAddress(a.address) && !isLoopbackAddress(a.address));
    if (inside) throw new UnsafeWebhookAddressError(`${bare} resolves to ${inside.address}, a private or link-local address (the sandbox allows loopback and public addresses)`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
};

/** Both checks at once (syntax, then DNS in production): what creating an endpoint or changing its URL asks. */
export const assessWebhookUrl = async (raw: string, o: WebhookUrlOptions & { resolver?: Resolver }): Promise<WebhookUrlCheck> => {
  const checked = checkWebhookUrl(raw, o);
  if (!checked.ok || !o.production) return checked;
  try {
    await resolvePublicAddress(hostOf(checked.url), o);
    return checked;
  } catch (e) {
    if (e instanceof UnsafeWebhookAddressError) return { ok: false, problem: e.message };
    throw e;
  }
};

const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');

const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

const isUnder = (url: URL, base: string): boolean => {
  try {
    const b = new URL(base);
    const path = b.pathname.endsWith('/') ? b.pathname : `${b.pathname}/`;
    return url.origin === b.origin && url.pathname.startsWith(path) && url.pathname.length > path.length && !url.search;
  } catch {
    return false;
  }
};

// ---- address classification ----

/** IPv4 ranges that are not public unicast (RFC 6890 and friends). */
const V4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const v4ToInt = (a: string): number => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);

const v4Blocked = (a: string): boolean => {
  const n = v4ToInt(a);
  return V4_BLOCKED.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    return Math.floor(n / size) === Math.floor(v4ToInt(base) / size);
  });
};

/** The 8 16-bit groups of an IPv6 address (with `::` and a trailing dotted quad), or null. */
const v6Groups = (a: string): number[] | null => {
  let s = a.toLowerCase().replace(/%.*$/, '');
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (quad) {
    const n = v4ToInt(quad[1]!);
    s = s.slice(0, -quad[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail, extra] = s.split('::');
  if (extra !== undefined) return null;
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  const groups = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
};

const embeddedV4 = (g: number[]): string => [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');

const v6Blocked = (a: string): boolean => {
  const g = v6Groups(a);
  if (!g) return true;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(7) && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
  if (zeroTo(5) && g[5] === 0xffff) return v4Blocked(embeddedV4(g)); // ::ffff:a.b.c.d, IPv4-mapped
  if (zeroTo(6)) return true; // ::a.b.c.d, deprecated IPv4-compatible
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4Blocked(embeddedV4(g)); // NAT64
  if (g[0] === 0x2002) return v4Blocked([g[1]! >> 8, g[1]! & 0xff, g[2]! >> 8, g[2]! & 0xff].join('.')); // 6to4
  if ((g[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0]! & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0]! & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return true; // discard prefix
  if (g[0] === 0x2001 && g[1]! < 0x0200) return true; // 2001::/23 IETF protocol assignments (Teredo and friends)
  return false;
};

/** True for a public unicast address only (an unparsable one is not public). */
export const isPublicAddress = (address: string): boolean => {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  switch (isIP(bare)) {
    case 4:
      return !v4Blocked(bare);
    case 6:
      return !v6Blocked(bare);
    default:
      return false;
  }
};

const isLoopbackAddress = (address: string): boolean => {
  if (isIP(address) === 4) return address.startsWith('127.');
  const g = v6Groups(address);
  if (!g) return false;
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true;
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff && g[6]! >> 8 === 127;
};
