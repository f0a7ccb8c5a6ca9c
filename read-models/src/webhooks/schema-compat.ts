/**
 * Whether a new catalogue of public event schemas stays compatible with a published one (docs/public-events.json).
 * A partner's receiver was written against the published schemas, so a published type keeps every property it had,
 * with the same type, no property becomes required that was not, and no enum value or constant disappears. New types,
 * new optional properties and new enum values are additions.
 */

/** The published snapshot: each public type's description and JSON Schema (draft 2020-12, the whole event). */
export interface PublishedCatalogue {
  apiVersion: string;
  types: Record<string, { description: string; subject?: string; schema: Record<string, unknown> }>;
}

type Node = Record<string, unknown>;

const asNode = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A node's kind in words: its JSON type(s), or the kinds of its union branches. */
const kindOf = (n: Node): string => {
  if (n.anyOf) return `anyOf(${list(n.anyOf).map((b) => kindOf(asNode(b))).join('|')})`;
  if (n.oneOf) return `oneOf(${list(n.oneOf).map((b) => kindOf(asNode(b))).join('|')})`;
  if (Array.isArray(n.type)) return [...(n.type as string[])].sort().join('|');
  return typeof n.type === 'string' ? n.type : 'any';
};

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

const compareNode = (before: Node, after: Node, path: string, out: string[]): void => {
  const [was, is] = [kindOf(before), kindOf(after)];
  if (was !== is) {
    out.push(`${path}: type changed from ${was} to ${is}`);
    return;
  }
  if ('const' in before && JSON.stringify(before.const) !== JSON.stringify(after.const)) {
    out.push(`${path}: constant changed from ${JSON.stringify(before.const)} to ${JSON.stringify(after.const)}`);
  }
  if (Array.isArray(before.enum)) {
    const now = new Set(list(after.enum).map((v) => JSON.stringify(v)));
    for (const v of before.enum) if (!now.has(JSON.stringify(v))) out.push(`${path}: enum value removed: ${String(v)}`);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    list(before[key]).forEach((b, i) => compareNode(asNode(b), asNode(list(after[key])[i]), path, out));
  }
  if (before.items) compareNode(asNode(before.items), asNode(after.items), `${path}[]`, out);
  const [props, nextProps] = [asNode(before.properties), asNode(after.properties)];
  for (const [key, schema] of Object.entries(props)) {
    if (!(key in nextProps)) out.push(`${child(path, key)}: property removed`);
    else compareNode(asNode(schema), asNode(nextProps[key]), child(path, key), out);
  }
  const required = new Set(list(before.required));
  for (const key of list(after.required)) if (!required.has(key)) out.push(`${child(path, String(key))}: newly required`);
};

/** What the new catalogue breaks of the published one, one line each ("<type>: <path>: <what>"); empty when compatible. */
export const incompatibilities = (published: PublishedCatalogue, next: PublishedCatalogue): string[] => {
  const out: string[] = [];
  for (const [type, { schema }] of Object.entries(published.types)) {
    const now = next.types[type];
    if (!now) {
      out.push(`${type}: type removed`);
      continue;
    }
    const found: string[] = [];
    compareNode(schema, now.schema, '', found);
    out.push(...found.map((f) => `${type}: ${f}`));
  }
  return out;
};
