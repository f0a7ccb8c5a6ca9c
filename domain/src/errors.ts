/** The kinds of failure a command or query can end in. One HTTP middleware maps each kind to a status. */
export type ErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'illegal_state'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unavailable';

export abstract class AppError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    /** A stable machine-readable code, e.g. `pool_already_archived`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export type FieldErrors = Record<string, string[]>;

export class ValidationError extends AppError {
  readonly kind = 'validation';
  constructor(
    readonly errors: FieldErrors,
    message = 'Validation failed',
    code = 'validation_failed',
  ) {
    super(code, message);
  }
}
export class UnauthorizedError extends AppError {
  readonly kind = 'unauthorized';
  constructor(message = 'Authentication required', code = 'unauthorized') {
    super(code, message);
  }
}
export class ForbiddenError extends AppError {
  readonly kind = 'forbidden';
}
export class NotFoundError extends AppError {
  readonly kind = 'not_found';
  constructor(what: string) {
    super(`${what}_not_found`, `${what.charAt(0).toUpperCase()}${what.slice(1).replace(/_/g, ' ')} not found`);
  }
}
export class ConflictError extends AppError {
  readonly kind = 'conflict';
  constructor(
    code: string,
    message: string,
    /** Per-field detail of the conflict (what is left of a unit, say), rendered like validation errors. */
    readonly errors?: FieldErrors,
  ) {
    super(code, message);
  }
}
/** A command that is well-formed but not allowed in the aggregate's current state (answered 400, as the contract says). */
export class IllegalStateError extends AppError {
  readonly kind = 'illegal_state';
}

/** A dependency (the ledger, a mail server) did not answer: retry later (503). */
export class UnavailableError extends AppError {
  readonly kind = 'unavailable';
}

export const assertNever = (value: never): never => {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
};
