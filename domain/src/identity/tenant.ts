import type { DomainEvent, EventData } from '@cagnotte/event-schemas';
import { ConflictError, assertNever } from '../errors';

/** A tenant's stream `tenant-<slug>` holds its TenantCreated only: the slug is the stream's name, so it is unique. */
export type TenantEvent = Extract<DomainEvent, { type: 'TenantCreated' }>;

export type Tenant = { status: 'none' } | ({ status: 'created' } & EventData<'TenantCreated'>);

export interface TenantInput {
  tenantId: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

export type TenantCommand = { type: 'CreateTenant'; data: TenantInput; metadata: { now: string } };

export const initialTenant = (): Tenant => ({ status: 'none' });

export const evolveTenant = (_state: Tenant, event: TenantEvent): Tenant => {
  switch (event.type) {
    case 'TenantCreated':
      return { status: 'created', ...event.data };
    default:
      return assertNever(event.type);
  }
};

/**
 * A slug already taken is a conflict. Decided on the stream as read: when two creations race, the loser's append
 * fails on `no_stream`, the command runs again on the fresh stream and lands here.
 */
export const decideTenant = (command: TenantCommand, state: Tenant): TenantEvent[] => {
  switch (command.type) {
    case 'CreateTenant': {
      const input = command.data;
      if (state.status !== 'none') throw new ConflictError('tenant_exists', `Tenant ${input.slug} already exists`);
      return [{ type: 'TenantCreated', data: { ...input, approvedOrigins: [...new Set(input.approvedOrigins)], createdAt: command.metadata.now } }];
    }
    default:
      return assertNever(command.type);
  }
};
