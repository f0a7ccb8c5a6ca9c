import type pg from 'pg';
import type { DomainEvent, EventMetadata } from '@cagnotte/event-schemas';
import { formatPosition, type AuthContext, type IdempotencyClaim, type RecentWrites, type RouteAnswer } from '@cagnotte/infra';
import { runCommand, type Aggregate, type CommandOutcome, type CommandRuntime } from './run-command';
import { metadataFor } from './context';

/** What a command needs from the process: the engine's runtime, plus where a write is remembered (both optional: jobs and the CLI have no session). */
export interface ExecuteRuntime extends CommandRuntime {
  /** This process's writes: any later read here waits for the furthest of them (read-your-writes, query-api/src/shared/consistency.ts). */
  recentWrites?: Pick<RecentWrites, 'record'>;
  /** The facts cache (shared/facts.ts): a command on an account or tenant stream refreshes what it holds of it. */
  facts?: { written(stream: string): void };
}

/** One command: the stream and its fold, a pure decision, and how to answer. */
export interface Command<S, E extends DomainEvent = DomainEvent> {
  stream: string;
  aggregate: Aggregate<S, E>;
  /** Pure: the events on the state as the stream says now, or throws a domain error to refuse. The facts are closed over. */
  decide: (state: S) => E[];
  metadata: EventMetadata;
  /** The answer, from the command's own state (never a read model): written with the events under an Idempotency-Key. */
  respond?: (outcome: CommandOutcome<S, E>) => RouteAnswer;
  idempotency?: IdempotencyClaim | null;
  /** Rows of other tables that commit with the events (Postgres store only). */
  within?: (client: pg.ClientBase) => Promise<void>;
  deadlineMs?: number;
  /** The caller's session: remembered with the write's position (RecentWrites.lastOf). */
  session?: string | null;
}

export const POSITION_HEADER = 'X-Event-Position';

/** The request a route's command comes from (a signed-in user's, or a public one's). */
export type CommandCtx = { auth: AuthContext | null; tenant: { id: string } | null; requestId: string; ip: string; idempotency: IdempotencyClaim | null };

/** What a command takes from its request: its metadata, its Idempotency-Key, its session. */
export const fromRequest = (ctx: CommandCtx, tenantId: string | null, now: string) => ({
  metadata: metadataFor(ctx, tenantId, now),
  idempotency: ctx.idempotency,
  session: ctx.auth?.sessionId ?? null,
});

/**
 * The one command path: every command of the service comes through here, to the engine (runCommand: the stream's
 * turn, its tail, decide, one append with the expected revision and the idempotent answer). It answers from the
 * command's own state and does not wait for projections: the position it wrote is remembered in the process, and any
 * later read served here waits for it (query-api/src/shared/consistency.ts).
 */
export async function executeCommand<S, E extends DomainEvent>(
  runtime: ExecuteRuntime,
  command: Command<S, E> & { respond: NonNullable<Command<S, E>['respond']> },
): Promise<CommandOutcome<S, E> & { answer: RouteAnswer }>;
export async function executeCommand<S, E extends DomainEvent>(runtime: ExecuteRuntime, command: Command<S, E>): Promise<CommandOutcome<S, E> & { answer: RouteAnswer | null }>;
export async function executeCommand<S, E extends DomainEvent>(runtime: ExecuteRuntime, command: Command<S, E>): Promise<CommandOutcome<S, E> & { answer: RouteAnswer | null }> {
  const { respond } = command;
  const outcome = await runCommand(runtime, command.stream, command.aggregate, command.decide, command.metadata, {
    // The answer of a command that wrote names its position (the engine adds it where it knows it; until then, here).
    ...(respond ? { respond: (o: CommandOutcome<S, E>) => withPosition(respond(o), o) } : {}),
    ...(command.idempotency !== undefined ? { idempotency: command.idempotency } : {}),
    ...(command.within ? { within: command.within } : {}),
    ...(command.deadlineMs !== undefined ? { deadlineMs: command.deadlineMs } : {}),
  });
  if (outcome.position) {
    runtime.recentWrites?.record(command.session ?? null, outcome.position);
    runtime.facts?.written(command.stream);
  }
  return outcome;
}

const withPosition = (answer: RouteAnswer, outcome: { position: CommandOutcome<unknown>['position'] }): RouteAnswer =>
  !outcome.position || answer.headers?.[POSITION_HEADER] ? answer : { ...answer, headers: { ...answer.headers, [POSITION_HEADER]: formatPosition(outcome.position) } };
