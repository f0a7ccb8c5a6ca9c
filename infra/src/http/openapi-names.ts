/**
 * Names the OpenAPI document gives what the route definitions leave unnamed: an operationId per operation and the
 * names of its request and response components. They are what an SDK generator turns into method and type names,
 * so they derive from the method and path alone (stable: another route never renames one) and a route whose shape
 * reads badly says its own `operationId`.
 */

const isParam = (segment: string) => /^\{\w+\}$/.test(segment);

/** `reservations` → `reservation`, `group-buys` → `group-buy`, `addresses` → `address`; a word that is not plural stays. */
export const singular = (word: string): string => {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/[^su]s$/.test(word)) return word.slice(0, -1);
  return word;
};
const isPlural = (word: string) => singular(word) !== word;

const pascal = (word: string) =>
  word
    .split(/[-_.]/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
const camel = (words: string[]) => {
  const joined = words.map(pascal).join('');
  return joined.charAt(0).toLowerCase() + joined.slice(1);
};

/**
 * The operationId of a route that does not name its own, from its method and path:
 * - the `/api` or `/v1` prefix is dropped, `me` reads `my` but last, every word but the last is singular;
 * - an item (the path ends in a parameter): get, update (patch, put), delete, post + its words: `getPool`;
 * - a collection (ends in a plural word): list (get), create (post, singular) + its words: `listPools`, `createPoolReservation`;
 * - else a POST is an action named by its last word: `POST /pools/{id}/archive` → `archivePool`; the other methods
 *   read the word as a thing: `getPoolEscrow`, `deletePoolArchive`.
 */
export const deriveOperationId = (method: string, path: string): string => {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'api' || segments[0] === 'v1') segments.shift();
  const words: string[] = [];
  segments.forEach((segment, i) => {
    if (isParam(segment)) return;
    const word = segment === 'me' && i + 1 < segments.length ? 'my' : segment;
    words.push(i + 1 < segments.length ? singular(word) : word);
  });
  const last = segments[segments.length - 1] ?? '';
  const m = method.toLowerCase();
  const itemVerb: Record<string, string> = { get: 'get', patch: 'update', put: 'update', delete: 'delete', post: 'post' };
  if (segments.length === 0) return camel([m, 'root']);
  if (isParam(last)) return camel([itemVerb[m] ?? m, ...words]);
  if (isPlural(last)) {
    const verb = { get: 'list', post: 'create' }[m] ?? itemVerb[m] ?? m;
    return camel([verb, ...(m === 'post' ? [...words.slice(0, -1), singular(last)] : words)]);
  }
  if (m === 'post') return words.length === 1 ? camel(words) : camel([words[words.length - 1]!, ...words.slice(0, -1)]);
  return camel([itemVerb[m] ?? m, ...words]);
};

/** `createPool` → `CreatePool`: the stem of the operation's component names (`CreatePoolRequest`, `CreatePoolResponse`). */
export const componentStem = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);
