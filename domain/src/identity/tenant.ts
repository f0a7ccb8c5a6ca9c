import type { DomainEvent, EventData, TenantSettings } from '@cagnotte/event-schemas';
import { ConflictError, NotFoundError, assertNever } from '../errors';

/** A tenant's stream `tenant-<slug>` holds its TenantCreated, then its settings changes: the slug is the stream's name, so it is unique. */
export type TenantEvent = Extract<DomainEvent, { type: 'TenantCreated' | 'TenantSettingsChanged' }>;

export type Tenant = { status: 'none' } | ({ status: 'created'; settings: TenantSettings } & EventData<'TenantCreated'>);

export interface TenantInput {
  tenantId: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

export type TenantCommand =
  | { type: 'CreateTenant'; data: TenantInput; metadata: { now: string } }
  | { type: 'ChangeTenantSettings'; data: { settings: TenantSettings }; metadata: { now: string } };

export const initialTenant = (): Tenant => ({ status: 'none' });

export const evolveTenant = (state: Tenant, event: TenantEvent): Tenant => {
  switch (event.type) {
    case 'TenantCreated':
      return { status: 'created', settings: {}, ...event.data };
    case 'TenantSettingsChanged':
      return state.status === 'none' ? state : { ...state, settings: { ...state.settings, ...event.data.settings } };
    default:
      return assertNever(event);
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
    case 'ChangeTenantSettings': {
      if (state.status === 'none') throw new NotFoundError('tenant');
      // Only what changes is recorded; setting the same values again records nothing.
      const changes = Object.fromEntries(
        Object.entries(command.data.settings).filter(([k, v]) => v !== undefined && JSON.stringify(state.settings[k as keyof TenantSettings]) !== JSON.stringify(v)),
      ) as TenantSettings;
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'TenantSettingsChanged', data: { tenantId: state.tenantId, settings: changes, changedAt: command.metadata.now } }];
    }
    default:
      return assertNever(command);
  }
};
