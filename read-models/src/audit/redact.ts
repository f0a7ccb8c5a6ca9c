/**
 * Events are written without secrets (the pool commands refuse anything shaped like a secret key), but pools created
 * before `config` was closed could hold free-form keys, and the history serves data as stored. So before an event
 * leaves, two kinds of value are withheld: a string holding something shaped like a Stellar secret seed, and any value
 * under a key that names a secret, a password, a seed, a private key or an XDR (a reclaim transaction is the buyer's
 * alone). The paths withheld are listed with the event: its hash is still checked on the stored content, but cannot
 * be recomputed by hand from what is served.
 */
const STELLAR_SECRET_SEED = /(?<![A-Z2-7])S[A-Z2-7]{55}(?![A-Z2-7])/;
const SECRET_KEY_NAME = /secret|password|passphrase|seed|private|xdr/i;
export const REDACTED = '[redacted]';

const walk = (value: unknown, path: string, out: string[]): unknown => {
  if (typeof value === 'string') {
    if (!STELLAR_SECRET_SEED.test(value)) return value;
    out.push(path);
    return REDACTED;
  }
  if (Array.isArray(value)) return value.map((v, i) => walk(v, `${path}.${i}`, out));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY_NAME.test(k) && v !== null && v !== undefined) {
        out.push(`${path}.${k}`);
        copy[k] = REDACTED;
      } else copy[k] = walk(v, `${path}.${k}`, out);
    }
    return copy;
  }
  return value;
};

/** The value with secret-shaped parts replaced by `[redacted]`, and the paths replaced (`data.config.escrow.secret`). */
export const redact = (value: unknown, root: string): { value: unknown; paths: string[] } => {
  const paths: string[] = [];
  const out = walk(value, root, paths);
  return { value: paths.length === 0 ? value : out, paths };
};
