import type { AccountType, DomainEvent, Role } from '@cagnotte/event-schemas';
import { ConflictError } from '../errors';

export interface TenantInput {
  tenantId: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

/** Tenants live in stream `tenant-<slug>`: the expected revision no_stream makes the slug unique. */
export const decideCreateTenant = (exists: boolean, input: TenantInput, now: string): DomainEvent[] => {
  if (exists) throw new ConflictError('tenant_exists', `Tenant ${input.slug} already exists`);
  return [{ type: 'TenantCreated', data: { ...input, approvedOrigins: [...new Set(input.approvedOrigins)], createdAt: now } }];
};

export interface AccountInput {
  userId: string;
  tenantId: string;
  email: string;
  phone: string | null;
  displayName: string;
  role: Role;
  accountType: AccountType;
  country?: string;
  timezone?: string;
  signupSource: string;
}

export const decideRegisterAccount = (exists: boolean, input: AccountInput, now: string): DomainEvent[] => {
  if (exists) throw new ConflictError('account_exists', 'Account already exists');
  return [
    {
      type: 'AccountRegistered',
      data: {
        userId: input.userId,
        tenantId: input.tenantId,
        email: input.email.trim().toLowerCase(),
        phone: input.phone,
        displayName: input.displayName,
        role: input.role,
        accountType: input.accountType,
        country: input.country ?? 'FR',
        currency: 'EUR',
        timezone: input.timezone ?? 'Europe/Paris',
        signupSource: input.signupSource,
        registeredAt: now,
      },
    },
  ];
};

export interface Account {
  userId: string;
  tenantId: string;
  email: string;
  phone: string | null;
  displayName: string;
  role: Role;
  accountType: AccountType;
  country: string;
  currency: string;
  timezone: string;
  signupSource: string;
  registeredAt: string;
}

/** Folds an account's stream. Events of later issues (role granted, became seller) will extend it. */
export const evolveAccount = (state: Account | null, event: DomainEvent): Account | null => {
  switch (event.type) {
    case 'AccountRegistered':
      return { ...event.data };
    default:
      return state;
  }
};
