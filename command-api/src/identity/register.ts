import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import {
  ConflictError,
  accountWithMandatesAggregate,
  decideAccount,
  decideMandate,
  mandateAggregate,
  type AccountInput,
  type AccountWithMandates,
  type BusinessIdentityInput,
  type MandateEvent,
} from '@cagnotte/domain';
import { currentMandate, type DomainEvent, type EventData, type EventMetadata, type MandateKind } from '@cagnotte/event-schemas';
import { hashPassword, type Position } from '@cagnotte/infra';
import { accountStream } from '../shared/context';
import { sharesTransactions, type CommandOptions, type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';

export type RegisterUserInput = Omit<AccountInput, 'userId'> & {
  password: string;
  /** A BUSINESS signup's identity (DAC7), recorded with the registration in the same append. */
  business?: BusinessIdentityInput | null;
  /** Mandates accepted at signup (their current texts), recorded in the same append. */
  mandates?: Array<{ kind: MandateKind; ip: string | null }>;
};

/** The event store and, for the credentials, the database. */
export interface RegisterDeps extends CommandRuntime {
  knex: Knex;
}

const takenOr = (e: unknown): unknown => {
  if ((e as { code?: string }).code !== '23505') return e;
  const which = String((e as { constraint?: string }).constraint).includes('phone') ? 'phone' : 'email';
  return new ConflictError(`${which}_taken`, `An account with this ${which} already exists`);
};

/**
 * Runs a registration (`run`) with the account's credentials row, whose unique indexes make the email and phone unique
 * per tenant (409 email_taken / phone_taken). Nothing half-made stays: with the Postgres event store the row is written
 * in the events' transaction; with another store the row is claimed first and released if the append fails.
 */
export const withCredentials = async <T>(
  deps: RegisterDeps,
  row: { userId: string; tenantId: string; email: string; phone: string | null; passwordHash: string },
  run: (within?: (client: pg.ClientBase) => Promise<void>) => Promise<T>,
): Promise<T> => {
  if (sharesTransactions(deps.store)) {
    try {
      return await run(async (client) => {
        await client.query('INSERT INTO credentials (user_id, tenant_id, email, phone, password_hash) VALUES ($1, $2, $3, $4, $5)', [
          row.userId,
          row.tenantId,
          row.email,
          row.phone,
          row.passwordHash,
        ]);
      });
    } catch (e) {
      throw takenOr(e);
    }
  }
  try {
    await deps.knex('credentials').insert({ user_id: row.userId, tenant_id: row.tenantId, email: row.email, phone: row.phone, password_hash: row.passwordHash });
  } catch (e) {
    throw takenOr(e);
  }
  try {
    return await run();
  } catch (e) {
    await deps.knex('credentials').where({ user_id: row.userId }).delete();
    throw e;
  }
};

/**
 * Registers an account: AccountRegistered (with the business identity and signup mandates) on a new
 * `account-<userId>`, and the credentials row whose unique indexes make the email and phone unique per tenant
 * (409 email_taken / phone_taken). Nothing half-made stays: with the Postgres event store the row is written in the
 * events' transaction; with another store the row is claimed first and released if the append fails.
 */
export const registerUser = async (
  deps: RegisterDeps,
  input: RegisterUserInput,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<{ userId: string; position: Position; account: EventData<'AccountRegistered'> }> => {
  const userId = randomUUID();
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const { password: _password, business, mandates, ...accountInput } = input;
  const now = metadata.occurredAt;
  const decide = (state: AccountWithMandates): DomainEvent[] => {
    const registered = decideAccount({ type: 'RegisterAccount', data: { ...accountInput, email, userId, business: business ?? null }, metadata: { now } }, state.account);
    let folded = registered.reduce(mandateAggregate.evolve, state.mandates);
    const accepted: MandateEvent[] = [];
    for (const m of mandates ?? []) {
      const events = decideMandate({ type: 'AcceptMandate', data: { mandateId: randomUUID(), kind: m.kind, text: currentMandate(m.kind), ip: m.ip }, metadata: { now } }, folded);
      folded = events.reduce(mandateAggregate.evolve, folded);
      accepted.push(...events);
    }
    return [...registered, ...accepted];
  };
  const run = (within?: CommandOptions<AccountWithMandates>['within']) =>
    executeCommand(deps, {
      stream: accountStream(userId),
      aggregate: accountWithMandatesAggregate,
      decide,
      metadata: { ...metadata, tenantId: input.tenantId },
      within,
    });

  const { position, events } = await withCredentials(deps, { userId, tenantId: input.tenantId, email, phone: input.phone, passwordHash }, run);
  const registered = events.find((e): e is Extract<DomainEvent, { type: 'AccountRegistered' }> => e.type === 'AccountRegistered')!;
  return { userId, position: position!, account: registered.data };
};
