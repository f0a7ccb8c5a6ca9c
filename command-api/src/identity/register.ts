import { randomUUID } from 'node:crypto';
import { ConflictError, decideCreateTenant, decideRegisterAccount, type AccountInput } from '@cagnotte/domain';
import type { DomainEvent, EventMetadata } from '@cagnotte/event-schemas';
import { toNewEvents } from '../shared/new-events';
import { WrongExpectedRevisionError, hashPassword, type Position, type Services } from '@cagnotte/infra';
import { accountStream, tenantStream } from '../shared/context';

export interface CreateTenantInput {
  slug: string;
  name?: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

/** Appends TenantCreated to `tenant-<slug>` with no_stream: a taken slug is a conflict. */
export const createTenant = async (services: Services, input: CreateTenantInput, metadata: Omit<EventMetadata, 'tenantId'>) => {
  const tenantId = randomUUID();
  const events = decideCreateTenant(
    false,
    { tenantId, slug: input.slug, name: input.name ?? input.slug, whiteLabel: input.whiteLabel, approvedOrigins: input.approvedOrigins },
    metadata.occurredAt,
  );
  try {
    const result = await services.store.append(tenantStream(input.slug), toNewEvents(events, { ...metadata, tenantId }), { expectedRevision: 'no_stream' });
    return { tenant: events[0]!.data as Extract<DomainEvent, { type: 'TenantCreated' }>['data'], position: result.position };
  } catch (e) {
    if (e instanceof WrongExpectedRevisionError) throw new ConflictError('tenant_exists', `Tenant ${input.slug} already exists`);
    throw e;
  }
};

export type RegisterUserInput = Omit<AccountInput, 'userId'> & {
  password: string;
  /** Events appended with the registration, in the same append (business identity, a FEE mandate). */
  alsoRecord?: (userId: string, now: string) => DomainEvent[];
};

/**
 * Claims the email (and phone) in the credentials table first, whose unique indexes make them unique per
 * tenant, then appends AccountRegistered. If the append fails the claim is released, so nothing half-made stays.
 */
export const registerUser = async (services: Services, input: RegisterUserInput, metadata: Omit<EventMetadata, 'tenantId'>): Promise<{ userId: string; position: Position; account: Extract<DomainEvent, { type: 'AccountRegistered' }>['data'] }> => {
  const userId = randomUUID();
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  try {
    await services.knex('credentials').insert({ user_id: userId, tenant_id: input.tenantId, email, phone: input.phone, password_hash: passwordHash });
  } catch (e) {
    if ((e as { code?: string }).code === '23505') {
      const which = String((e as { constraint?: string }).constraint).includes('phone') ? 'phone' : 'email';
      throw new ConflictError(`${which}_taken`, `An account with this ${which} already exists`);
    }
    throw e;
  }
  try {
    const { password: _password, alsoRecord, ...accountInput } = input;
    void _password;
    const events = [...decideRegisterAccount(false, { ...accountInput, email, userId }, metadata.occurredAt), ...(alsoRecord?.(userId, metadata.occurredAt) ?? [])];
    const result = await services.store.append(accountStream(userId), toNewEvents(events, { ...metadata, tenantId: input.tenantId }), { expectedRevision: 'no_stream' });
    return { userId, position: result.position, account: events[0]!.data as Extract<DomainEvent, { type: 'AccountRegistered' }>['data'] };
  } catch (e) {
    await services.knex('credentials').where({ user_id: userId }).delete();
    throw e;
  }
};
