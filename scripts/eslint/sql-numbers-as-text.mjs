/**
 * cagnotte/sql-no-text-sort-key: no SQL orders, compares or pages by a value cast to text.
 *
 * A number cast to text sorts as text: 0, 1, 10, 11, …, 2. That already lost pools in rebuilds (the feed's
 * `transaction_id::text`) and made `events verify` name untouched events forged (`stream_revision::text`, then
 * `ORDER BY stream_revision`, which PostgreSQL resolves to the text output column of that name). Types are not known
 * here, so the rule is about the cast: a text cast may carry a value to JavaScript (`transaction_id::text AS
 * commit_text`, then BigInt) or be cast on (`$1::text::xid8`), but it is never a sort or compare key. It reports:
 *
 *  - an ORDER BY key (query, window or aggregate) that is a text cast (`x::text`, `CAST(x AS text)`, `to_char(…)`),
 *    or a bare name that the same SQL gives to a text cast (`x::text` is output as `x`; `… AS x`);
 *  - a comparison (=, <>, <, >, <=, >=, BETWEEN, a row comparison) or min()/max() over a text cast;
 *  - knex: `.orderBy('x')` / `.orderByRaw('…')` where `x` is a text cast's name in the same call chain.
 *
 * SQL is read from string literals, templates (an interpolated `const` of the same file is inlined, the rest is
 * opaque) and `+` concatenations. The remedy: order by the column itself, and give the text another name.
 */

const TEXT_TYPE = String.raw`(?:text|varchar|character\s+varying|char|bpchar|name)`;
/** `::text` that stays text: not followed by another cast (`::text::xid8`) nor an array (`::text[]`). */
const CAST_SUFFIX = String.raw`::\s*${TEXT_TYPE}\b(?!\s*(?:::|\[))`;
/** An operand: a qualified name, a parameter, or a call / parenthesised expression one level deep. */
const OPERAND = String.raw`(?:[A-Za-z_][\w.]*\s*\([^()]*\)|\([^()]*\)|[A-Za-z_][\w.]*|\$\d+|\?)`;

const isParam = (operand) => /^(?:\$\d+|\?)$/.test(operand.trim());

/** Every text cast of the SQL: the expression and the name PostgreSQL gives the output column. */
const textCasts = (sql) => {
  const casts = [];
  const alias = (rest) => /^\s+AS\s+"?([A-Za-z_]\w*)"?/i.exec(rest)?.[1];
  const nameOf = (operand) => {
    const call = /^([A-Za-z_][\w.]*)\s*\(/.exec(operand);
    const name = call ? call[1] : /^[A-Za-z_][\w.]*$/.test(operand) ? operand : null;
    return name ? name.split('.').pop() : null;
  };
  for (const m of sql.matchAll(new RegExp(`(${OPERAND})\\s*${CAST_SUFFIX}`, 'gi'))) {
    if (isParam(m[1])) continue;
    const as = alias(sql.slice(m.index + m[0].length));
    casts.push({ expr: m[0], name: as ?? nameOf(m[1]), aliased: !!as });
  }
  for (const m of sql.matchAll(new RegExp(String.raw`\bCAST\s*\(\s*(${OPERAND})\s+AS\s+${TEXT_TYPE}\s*\)`, 'gi'))) {
    if (isParam(m[1])) continue;
    const as = alias(sql.slice(m.index + m[0].length));
    casts.push({ expr: m[0], name: as ?? nameOf(m[1]), aliased: !!as });
  }
  for (const m of sql.matchAll(/\bto_char\s*\(([^()]*|[^()]*\([^()]*\)[^()]*)\)/gi)) {
    const as = alias(sql.slice(m.index + m[0].length));
    casts.push({ expr: m[0], name: as ?? 'to_char', aliased: !!as });
  }
  return casts;
};

const hasTextCast = (expr) => textCasts(expr).length > 0;

/** Comments out, quoted literals emptied: what remains is SQL structure. */
const normalise = (sql) =>
  sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");

/** The keys of every ORDER BY of the SQL (queries, windows, aggregates), split at top-level commas. */
const orderKeys = (sql) => {
  const keys = [];
  const re = /\bORDER\s+BY\b/gi;
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    let depth = 0;
    let key = '';
    let i = m.index + m[0].length;
    const flush = () => {
      let k = key.trim();
      // Direction, nulls and an interpolated direction (`${backwards ? 'DESC' : 'ASC'}`) are not part of the key.
      for (let prev = ''; prev !== k; ) {
        prev = k;
        k = k.replace(/\s+(?:NULLS\s+(?:FIRST|LAST)|ASC|DESC|USING\s+\S+|__expr__)\s*$/i, '').trim();
      }
      if (k) keys.push(k);
      key = '';
    };
    for (; i < sql.length; i++) {
      const c = sql[i];
      if (depth === 0) {
        const rest = sql.slice(i);
        if (c === ';' || /^\b(?:LIMIT|OFFSET|FETCH|FOR|UNION|INTERSECT|EXCEPT|WINDOW|RETURNING|ROWS|RANGE|GROUPS)\b/i.test(rest) && /\W/.test(sql[i - 1] ?? ' ')) break;
      }
      if (c === '(') depth++;
      if (c === ')') {
        if (depth === 0) break;
        depth--;
      }
      if (c === ',' && depth === 0) flush();
      else key += c;
    }
    flush();
  }
  return keys;
};

/** The items of the first SELECT list (what `ORDER BY 1` refers to), split at top-level commas. */
const selectList = (sql) => {
  const m = /\bSELECT\s+(?:DISTINCT\s+)?/i.exec(sql);
  if (!m) return [];
  const items = [];
  let depth = 0;
  let item = '';
  for (let i = m.index + m[0].length; i < sql.length; i++) {
    const c = sql[i];
    if (depth === 0 && /^\bFROM\b/i.test(sql.slice(i)) && /\W/.test(sql[i - 1])) break;
    if (c === '(') depth++;
    if (c === ')') {
      if (depth === 0) break;
      depth--;
    }
    if (c === ',' && depth === 0) {
      items.push(item);
      item = '';
    } else item += c;
  }
  items.push(item);
  return items;
};

const COMPARE = String.raw`(?:<=|>=|<>|!=|=|<|>|\bBETWEEN\b|\bIS\s+(?:NOT\s+)?DISTINCT\s+FROM\b)`;

/** What is wrong with one SQL text: messages, empty when nothing. */
export const sqlProblems = (raw) => {
  const sql = normalise(raw);
  if (!/::|\bCAST\b|\bto_char\b/i.test(sql)) return [];
  const casts = textCasts(sql);
  if (casts.length === 0) return [];
  const problems = [];
  const names = new Set(casts.map((c) => c.name?.toLowerCase()).filter(Boolean));
  /** Names given with AS: a subquery's output that an outer query reaches as `sub.name`. */
  const aliases = new Set(casts.filter((c) => c.aliased).map((c) => c.name.toLowerCase()));
  for (const key of orderKeys(sql)) {
    const ordinal = /^\d+$/.test(key) ? selectList(sql)[Number(key) - 1] : undefined;
    if (ordinal !== undefined && hasTextCast(ordinal)) problems.push(`ORDER BY ${key}: output column ${key} is a value cast to text (${ordinal.trim()}), so it sorts as text (10 before 9)`);
    else if (hasTextCast(key)) problems.push(`ORDER BY ${key}: a value cast to text sorts as text (10 before 9); order by the column itself`);
    else if (/^[A-Za-z_]\w*$/.test(key) && names.has(key.toLowerCase()))
      problems.push(`ORDER BY ${key}: \`${key}\` is the name of a text cast in this SQL, so it sorts as text (10 before 9); select the text under another name (… AS ${key}_text)`);
    else if (/^[A-Za-z_]\w*\.[A-Za-z_]\w*$/.test(key) && aliases.has(key.split('.')[1].toLowerCase()))
      problems.push(`ORDER BY ${key}: \`${key.split('.')[1]}\` is a text cast's alias in this SQL (a subquery's output), so it sorts as text (10 before 9)`);
  }
  const castExpr = String.raw`(?:${OPERAND}\s*${CAST_SUFFIX}|\bCAST\s*\(\s*${OPERAND}\s+AS\s+${TEXT_TYPE}\s*\)|\bto_char\s*\([^()]*\))`;
  for (const m of sql.matchAll(new RegExp(`(${castExpr})\\s*${COMPARE}|${COMPARE}\\s*(${castExpr})`, 'gi'))) {
    const expr = (m[1] ?? m[2]).trim();
    if (textCasts(expr).length === 0) continue; // a parameter cast to text, compared with a text column
    problems.push(`${m[0].trim()}: a value cast to text compares as text (10 < 9); compare the column itself`);
  }
  // A row comparison over a tuple that holds a text cast: (x::text, y) > (…).
  for (const m of sql.matchAll(new RegExp(String.raw`\(([^()]*)\)\s*${COMPARE}|${COMPARE}\s*\(([^()]*)\)`, 'gi'))) {
    const tuple = m[1] ?? m[2];
    if (tuple.includes(',') && hasTextCast(tuple)) problems.push(`(${tuple.trim()}) compared: a value cast to text in a row comparison compares as text`);
  }
  for (const m of sql.matchAll(/\b(min|max)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)/gi)) {
    if (hasTextCast(m[2])) problems.push(`${m[0]}: ${m[1]} of a value cast to text is the textual ${m[1]} (9 > 10); take ${m[1]} of the column, then cast`);
  }
  return problems;
};

// ---- reading SQL out of the source ------------------------------------------------------------------------

const OPAQUE = ' __expr__ ';

const findVariable = (scope, name) => {
  for (let s = scope; s; s = s.upper) {
    const v = s.set.get(name);
    if (v) return v;
  }
  return null;
};

/** The text of a string-valued expression; an interpolated `const` is inlined, anything else is opaque. */
const textOf = (node, context, depth = 0) => {
  if (!node || depth > 5) return OPAQUE;
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string' ? node.value : OPAQUE;
    case 'TemplateLiteral':
      return node.quasis.map((q, i) => (q.value.cooked ?? q.value.raw) + (i < node.expressions.length ? textOf(node.expressions[i], context, depth + 1) : '')).join('');
    case 'BinaryExpression':
      return node.operator === '+' ? textOf(node.left, context, depth + 1) + textOf(node.right, context, depth + 1) : OPAQUE;
    case 'TSAsExpression':
    case 'TSSatisfiesExpression':
      return textOf(node.expression, context, depth + 1);
    case 'Identifier': {
      const v = findVariable(context.sourceCode.getScope(node), node.name);
      const def = v?.defs[0];
      if (def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.init) return textOf(def.node.init, context, depth + 1);
      return OPAQUE;
    }
    default:
      return OPAQUE;
  }
};

const isStringish = (node) =>
  (node.type === 'Literal' && typeof node.value === 'string') || node.type === 'TemplateLiteral' || (node.type === 'BinaryExpression' && node.operator === '+');

/** Every string of a knex call chain (arguments, knex.raw(...) inside them), for the names of its text casts. */
const chainStrings = (node, context, out = [], seen = new Set()) => {
  if (!node || seen.has(node)) return out;
  seen.add(node);
  const visitArg = (a) => {
    if (!a) return;
    if (isStringish(a)) out.push(textOf(a, context));
    else if (a.type === 'ArrayExpression') a.elements.forEach(visitArg);
    else if (a.type === 'ObjectExpression') a.properties.forEach((p) => p.type === 'Property' && visitArg(p.value));
    else if (a.type === 'CallExpression') {
      a.arguments.forEach(visitArg);
      chainStrings(a.callee, context, out, seen);
    }
  };
  if (node.type === 'CallExpression') {
    node.arguments.forEach(visitArg);
    chainStrings(node.callee, context, out, seen);
  } else if (node.type === 'MemberExpression') chainStrings(node.object, context, out, seen);
  else if (node.type === 'AwaitExpression') chainStrings(node.argument, context, out, seen);
  else if (node.type === 'Identifier') {
    const def = findVariable(context.sourceCode.getScope(node), node.name)?.defs[0];
    if (def?.type === 'Variable' && def.node.init) chainStrings(def.node.init, context, out, seen);
  }
  return out;
};

/** knex .orderBy() arguments as SQL keys. */
const knexOrderKeys = (args, context) => {
  const keys = [];
  const visit = (a) => {
    if (!a) return;
    if (isStringish(a)) keys.push(textOf(a, context));
    else if (a.type === 'ArrayExpression') a.elements.forEach(visit);
    else if (a.type === 'ObjectExpression') {
      const column = a.properties.find((p) => p.type === 'Property' && (p.key.name === 'column' || p.key.value === 'column'));
      if (column) visit(column.value);
    } else if (a.type === 'CallExpression' && a.callee.type === 'MemberExpression' && a.callee.property.name === 'raw') visit(a.arguments[0]);
  };
  visit(args[0]);
  return keys;
};

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'no SQL orders, compares or pages by a value cast to text (numbers sort as text: 10 before 9)' },
    schema: [],
    messages: { textKey: '{{problem}}' },
  },
  create(context) {
    const report = (node, problems) => {
      for (const problem of new Set(problems)) context.report({ node, messageId: 'textKey', data: { problem } });
    };
    const check = (node) => {
      const parent = node.parent;
      // Part of a larger string: the whole is checked once.
      if (parent && ((parent.type === 'BinaryExpression' && parent.operator === '+' && isStringish(parent)) || parent.type === 'TemplateLiteral')) return;
      report(node, sqlProblems(textOf(node, context)));
    };
    return {
      Literal(node) {
        if (typeof node.value === 'string') check(node);
      },
      TemplateLiteral: check,
      BinaryExpression(node) {
        if (node.operator === '+') check(node);
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
        const method = callee.property.name;
        if (method !== 'orderBy' && method !== 'orderByRaw') return;
        const keys = method === 'orderByRaw' ? [textOf(node.arguments[0], context)] : knexOrderKeys(node.arguments, context);
        const names = textCasts(normalise(chainStrings(callee.object, context).join('\n'))).map((c) => c.name).filter(Boolean);
        const sql = `SELECT ${names.map((n, i) => `x${i}::text AS ${n}`).join(', ') || '1'} ORDER BY ${keys.join(', ')}`;
        report(node, sqlProblems(sql));
      },
    };
  },
};

export default { rules: { 'sql-no-text-sort-key': rule } };
