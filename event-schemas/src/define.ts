import { z } from 'zod';

/** Who caused an event: a signed-in user, an operator at the CLI, or the system itself. */
export const Actor = z
  .object({ kind: z.enum(['user', 'operator', 'system']), id: z.string().min(1).max(200) })
  .strict();
export type Actor = z.infer<typeof Actor>;

export const EventMetadata = z
  .object({
    tenantId: z.string().min(1).nullable(),
    actor: Actor,
    correlationId: z.string().uuid(),
    causationId: z.string().uuid().nullable(),
    occurredAt: z.string().datetime({ offset: true }),
    ip: z.string().max(64).optional(),
  })
  .strict();
export type EventMetadata = z.infer<typeof EventMetadata>;

export interface EventDefinition<T extends string, S extends z.ZodType> {
  readonly type: T;
  readonly version: number;
  readonly data: S;
}

/** One event type at one schema version. A published definition is never edited: add a version and an upcaster. */
export const event = <T extends string, S extends z.ZodType>(type: T, version: number, data: S): EventDefinition<T, S> => ({
  type,
  version,
  data,
});

/** Turns data written at `fromVersion` into data of `fromVersion + 1`. */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  readonly up: (data: unknown) => unknown;
}

/** The event a definition describes: `{ type, data }`, data as its schema parses it. */
export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { type: T; data: z.infer<S> } : never;
