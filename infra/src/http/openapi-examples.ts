/**
 * Example values for the OpenAPI document, made from a JSON Schema (the document's own, after the zod schemas were
 * converted): realistic strings for the formats (email, uuid, date-time), "12.50" for decimal amounts, numbers
 * inside their bounds. The document builder keeps an example only when the route's zod schema accepts it, so an
 * example it shows is one the server takes.
 */

import { BY_DESCRIPTION, BY_NAME, FORMATS, MONEY_EXAMPLE, REALISTIC } from './openapi-example-values';

export type JsonSchema = { [key: string]: unknown };

export { MONEY_EXAMPLE } from './openapi-example-values';

/** A string the (simple) regular expression matches: classes cycle through their characters, optional parts are left out. */
export const stringMatching = (pattern: string): string => {
  let i = 0;
  const peek = () => pattern[i];
  const classChars = (): string[] => {
    // After '['.
    const chars: string[] = [];
    const negated = peek() === '^';
    if (negated) i++;
    while (i < pattern.length && peek() !== ']') {
      let c = pattern[i++]!;
      if (c === '\\') c = escapeChars(pattern[i++]!)[0]!;
      if (peek() === '-' && pattern[i + 1] && pattern[i + 1] !== ']') {
        i++;
        let to = pattern[i++]!;
        if (to === '\\') to = pattern[i++]!;
        for (let code = c.charCodeAt(0); code <= to.charCodeAt(0); code++) chars.push(String.fromCharCode(code));
      } else chars.push(c);
    }
    i++;
    if (negated) return ['abcdefghijklmnopqrstuvwxyz'].join('').split('').filter((c) => !chars.includes(c));
    return chars;
  };
  const escapeChars = (c: string): string[] =>
    c === 'd' ? '0123456789'.split('') : c === 'w' ? 'abcdefghijklmnopqrstuvwxyz0123456789_'.split('') : c === 's' ? [' '] : [c];
  /** Parses an alternation up to `)` or the end; returns the alternatives' generators (the first is used). */
  const sequence = (): string => {
    let result = '';
    while (i < pattern.length && peek() !== ')' && peek() !== '|') {
      let atom: (n: number) => string;
      const c = pattern[i++]!;
      if (c === '^' || c === '$') continue;
      if (c === '(') {
        if (pattern.startsWith('?:', i)) i += 2;
        const first = sequence();
        while (peek() === '|') {
          i++;
          sequence();
        }
        i++;
        atom = () => first;
      } else if (c === '[') {
        const chars = classChars();
        atom = (n) => chars[n % Math.max(chars.length, 1)] ?? 'a';
      } else if (c === '\\') {
        const chars = escapeChars(pattern[i++]!);
        atom = (n) => chars[n % chars.length]!;
      } else if (c === '.') atom = (n) => 'abcdefghij'[n % 10]!;
      else atom = () => c;
      let min = 1;
      const q = peek();
      if (q === '?' || q === '*') {
        min = 0;
        i++;
      } else if (q === '+') i++;
      else if (q === '{') {
        const close = pattern.indexOf('}', i);
        const [lo] = pattern.slice(i + 1, close).split(',');
        min = Number(lo);
        i = close + 1;
      }
      for (let n = 0; n < min; n++) result += atom(result.length);
    }
    return result;
  };
  const out = sequence();
  while (peek() === '|') {
    i++;
    sequence();
  }
  return out;
};

const resolve = (schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema => {
  let s = schema;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 20; hops++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = components[name] ?? {};
  }
  return s;
};

const stringExample = (s: JsonSchema, name: string | undefined): string => {
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  let value: string | undefined = format;
  if (value === undefined && typeof s.pattern === 'string') {
    const re = safeRegExp(s.pattern);
    value = (name && BY_NAME.find(([n]) => n.test(name))?.[1]) ?? undefined;
    if (value !== undefined && re && !re.test(value)) value = undefined;
    value ??= REALISTIC.find((v) => re?.test(v)) ?? stringMatching(s.pattern);
  }
  if (value === undefined && typeof s.description === 'string') {
    const description = s.description;
    for (const [re, make] of BY_DESCRIPTION) {
      const m = re.exec(description);
      if (m) {
        value = make(m);
        break;
      }
    }
  }
  value ??= (name && BY_NAME.find(([n]) => n.test(name))?.[1]) ?? 'example';
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  while (value.length < min) value += value.length ? value : 'x';
  return value.length > max ? value.slice(0, max) : value;
};

const safeRegExp = (pattern: string): RegExp | null => {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return null;
  }
};

const numberExample = (s: JsonSchema, integer: boolean): number => {
  const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + (integer ? 1 : 0.5) : -Infinity;
  const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - (integer ? 1 : 0.5) : Infinity;
  let n = Math.min(Math.max(10, lo), hi);
  if (integer) n = Math.ceil(n) <= hi ? Math.ceil(n) : Math.floor(n);
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) n = Math.ceil(n / s.multipleOf) * s.multipleOf;
  return n;
};

export interface ExampleOptions {
  /** Leave out optional properties (the smallest valid body), else show every property. */
  requiredOnly?: boolean;
}

/** A value the JSON Schema accepts (as far as JSON Schema says: a zod refinement it does not carry is the caller's to check). */
export const exampleOf = (schema: JsonSchema, components: Record<string, JsonSchema> = {}, options: ExampleOptions = {}, name?: string, depth = 0): unknown => {
  const s = resolve(schema, components);
  if (depth > 12) return null;
  const next = (sub: unknown, key?: string) => exampleOf((sub ?? {}) as JsonSchema, components, options, key, depth + 1);
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('example' in s) return s.example;
  if ('const' in s) return s.const;
  // A default says what a field usually is, unless it is an empty one (null, '', {}, []): an example shows a value.
  if (isShown(s.default)) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum.find((v) => v !== null) ?? s.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const nonNull = (branches as JsonSchema[]).find((b) => resolve(b, components).type !== 'null') ?? branches[0];
      return next(nonNull, name);
    }
  }
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as JsonSchema[]).map((part) => next(part, name));
    return parts.every((p) => p && typeof p === 'object' && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(s.type) ? ((s.type as string[]).find((t) => t !== 'null') ?? 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
        if (options.requiredOnly && !required.has(key)) continue;
        out[key] = next(sub, key);
      }
      return out;
    }
    case 'array': {
      const count = Math.max(1, typeof s.minItems === 'number' ? s.minItems : 1);
      const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
      if (max === 0) return [];
      if (Array.isArray(s.prefixItems)) return (s.prefixItems as JsonSchema[]).map((item) => next(item));
      return Array.from({ length: count }, () => next(s.items, name ? singularKey(name) : undefined));
    }
    case 'string':
      return stringExample(s, name);
    case 'integer':
      return numberExample(s, true);
    case 'number':
      return numberExample(s, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      // A value of any type (an event's data, a body as received): an object unless the name or description says more.
      return name && stringExample(s, name) !== 'example' ? stringExample(s, name) : {};
  }
};

const isShown = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== '' && !(typeof value === 'object' && Object.keys(value).length === 0);

const singularKey = (key: string) => key.replace(/s$/, '');

/**
 * Gives every money field of the document an example: a string schema whose pattern accepts "12.50" and refuses
 * "twelve" (a decimal amount), or a plain string property named like an amount. Mutates and returns the document.
 */
export const annotateMoneyFields = <T>(doc: T): T => {
  const visit = (node: unknown, key: string | undefined) => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, undefined));
    if (!node || typeof node !== 'object') return;
    const s = node as JsonSchema;
    const isString = s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));
    if (isString && !('examples' in s) && !('example' in s) && !('enum' in s) && !('const' in s) && !s.format) {
      const re = typeof s.pattern === 'string' ? safeRegExp(s.pattern) : null;
      const decimal = re ? re.test(MONEY_EXAMPLE) && !re.test('twelve') && s.pattern !== '^.*$' : false;
      const namedMoney = !s.pattern && key !== undefined && BY_NAME[0]![0].test(key);
      if (decimal || namedMoney) s.examples = [MONEY_EXAMPLE];
    }
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && v && typeof v === 'object') for (const [prop, sub] of Object.entries(v)) visit(sub, prop);
      else if (k !== 'examples' && k !== 'example') visit(v, undefined);
    }
  };
  visit(doc, undefined);
  return doc;
};
