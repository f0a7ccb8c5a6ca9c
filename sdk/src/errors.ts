import type { components } from './generated/schema';

/** The codes the document lists (autocompleted); an unknown one (newer than this SDK, or http_<status>) is still a string. */
export type CagnotteErrorCode = components['schemas']['Error']['code'] | 'connection_failed' | (string & {});

/**
 * What the API answered when it refused a request: the envelope `{ success: false, error, code, errors?, param?,
 * requestId }` with the HTTP status. `status` 0 with code `connection_failed` when no answer came at all (after the
 * retries).
 */
export class CagnotteError extends Error {
  /** The HTTP status (0: no answer). */
  readonly status: number;
  /** The stable machine-readable code, e.g. `webhook_endpoint_not_found`, `validation_failed`, `rate_limited`. */
  readonly code: CagnotteErrorCode;
  /** The first field at fault, when the API names one. */
  readonly param: string | null;
  /** The request's `X-Request-Id`: quote it to support. */
  readonly requestId: string | null;
  /** Per-field messages (dotted paths) of a validation failure. */
  readonly errors: Record<string, string[]>;
  /** The answer's body as parsed (the envelope, or the text when it was not JSON). */
  readonly body: unknown;

  constructor(input: { status: number; code: CagnotteErrorCode; message: string; param?: string | null; requestId?: string | null; errors?: Record<string, string[]>; body?: unknown; cause?: unknown }) {
    super(input.message, input.cause === undefined ? undefined : { cause: input.cause });
    this.name = 'CagnotteError';
    this.status = input.status;
    this.code = input.code;
    this.param = input.param ?? null;
    this.requestId = input.requestId ?? null;
    this.errors = input.errors ?? {};
    this.body = input.body;
  }

  /** The error of a refused answer: the envelope's fields, or what the status says when the body is not an envelope. */
  static fromResponse(response: Response, body: unknown): CagnotteError {
    const envelope = (body && typeof body === 'object' ? body : {}) as { error?: unknown; code?: unknown; param?: unknown; requestId?: unknown; errors?: unknown };
    const errors = envelope.errors && typeof envelope.errors === 'object' ? (envelope.errors as Record<string, string[]>) : {};
    const param = typeof envelope.param === 'string' ? envelope.param : (Object.keys(errors)[0] ?? null);
    return new CagnotteError({
      status: response.status,
      code: typeof envelope.code === 'string' ? envelope.code : `http_${response.status}`,
      message: typeof envelope.error === 'string' ? envelope.error : typeof body === 'string' && body ? body.slice(0, 500) : `HTTP ${response.status}`,
      param,
      requestId: typeof envelope.requestId === 'string' ? envelope.requestId : response.headers.get('x-request-id'),
      errors,
      body,
    });
  }
}

/** A webhook delivery that must not be trusted: a signature that does not verify, a timestamp too far from now, a header missing. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}
