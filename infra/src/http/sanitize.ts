import type { RequestHandler } from 'express';
import { ValidationError, type FieldErrors } from '@cagnotte/domain';
import { deferInputError } from './deferred-input';

export const MAX_JSON_DEPTH = 32;
const BAD_STRING = 'must not contain NUL characters or unpaired surrogates';

// Node 20 has String.prototype.isWellFormed (ES2024); the lib typings here stop at ES2023.
const wellFormed = (s: string): boolean => !s.includes('\u0000') && (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Refuses, as a 400 naming the field, what PostgreSQL would refuse later with an error: NUL characters and
 * unpaired surrogates (jsonb and text reject them), and JSON nested deeper than MAX_JSON_DEPTH levels.
 * Walks iteratively, so a hostile depth cannot overflow the stack here either.
 */
export const checkJsonInput = (value: unknown, root: string): FieldErrors => {
  const errors: FieldErrors = Object.create(null);
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (!wellFormed(v)) (errors[path] ??= []).push(BAD_STRING);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      (errors[root] ??= []).push(`must not be nested deeper than ${MAX_JSON_DEPTH} levels`);
      break;
    }
    for (const [k, child] of Object.entries(v)) {
      const childPath = path === root ? k : `${path}.${k}`;
      if (!wellFormed(k)) (errors[path] ??= []).push(`keys ${BAD_STRING}`);
      stack.push({ v: child, path: childPath, depth: depth + 1 });
    }
  }
  return errors;
};

/** Checks body and query; a failure is deferred to the route (see deferred-input.ts). */
export const sanitizeInput: RequestHandler = (req, _res, next) => {
  const bodyErrors = req.body === undefined ? {} : checkJsonInput(req.body, 'body');
  if (Object.keys(bodyErrors).length > 0) deferInputError(req, 'body', new ValidationError(bodyErrors, 'Invalid characters or nesting in the request'));
  // req.query parses the query string on every read: a URL without one has nothing to check.
  if (!req.url.includes('?')) return next();
  const queryErrors = checkJsonInput(req.query, 'query');
  if (Object.keys(queryErrors).length > 0) deferInputError(req, 'query', new ValidationError(queryErrors, 'Invalid characters or nesting in the request'));
  next();
};
