import type { AccountType, DomainEvent, EventData, PartnerMetadata, Role } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { checkBusinessIdentity, type BusinessIdentity, type BusinessIdentityInput } from '../personas/business-identity';

/**
 * The account aggregate: who the user is (registration, business identity, linked ledger account, role). It lives
 * in `account-<userId>`, a stream it shares with the organiser grants and the mandates (see ./account-stream.ts);
 * RoleGranted is decided by the organiser grant and folded here, because the role is the account's.
 */
export type AccountEvent = Extract<
  DomainEvent,
  {
    type: 'AccountRegistered' | 'BusinessIdentityCaptured' | 'LedgerAccountLinked' | 'RoleGranted' | 'PasswordResetCompleted' | 'AccountCreatedByPartner' | 'AccountProfileUpdated';
  }
>;

const ACCOUNT_EVENT_TYPES: ReadonlySet<string> = new Set<AccountEvent['type']>([
  'AccountRegistered',
  'BusinessIdentityCaptured',
  'LedgerAccountLinked',
  'RoleGranted',
  'PasswordResetCompleted',
  'AccountCreatedByPartner',
  'AccountProfileUpdated',
]);
export const isAccountEvent = (event: DomainEvent): event is AccountEvent => ACCOUNT_EVENT_TYPES.has(event.type);

export type RegisteredAccount = { status: 'registered' } & EventData<'AccountRegistered'> & {
    business: BusinessIdentity | null;
    ledgerAccount: string | null;
    /** What a partner recorded when it created the account through /v1 (null for a signup). */
    partner: { livemode: boolean; createdVia: string | null } | null;
    /** The partner's metadata (`/v1/accounts`), {} until set. */
    metadata: PartnerMetadata;
  };
export type Account = { status: 'none' } | RegisteredAccount;

export interface AccountInput {
  userId: string;
  tenantId: string;
  email: string;
  phone: string | null;
  displayName: string;
  role: Role;
  accountType: AccountType;
  country?: string | undefined;
  timezone?: string | undefined;
  signupSource: string;
}

interface CommandMeta {
  now: string;
}

export type AccountCommand =
  /** `business` (a BUSINESS signup) is recorded with the registration, in the same append. */
  | { type: 'RegisterAccount'; data: AccountInput & { business: BusinessIdentityInput | null }; metadata: CommandMeta }
  | { type: 'CaptureBusinessIdentity'; data: BusinessIdentityInput; metadata: CommandMeta }
  | { type: 'LinkLedgerAccount'; data: { ledgerAccount: string; challengeHash: string }; metadata: CommandMeta }
  | { type: 'RecordPasswordReset'; data: { sessionsRevoked: number; ip: string | null }; metadata: CommandMeta }
  /** `/v1/accounts`: a registration without a password, and what the partner records with it (same append). */
  | {
      type: 'CreateAccountForPartner';
      data: AccountInput & { business: BusinessIdentityInput | null; livemode: boolean; createdVia: string | null; metadata: PartnerMetadata };
      metadata: CommandMeta;
    }
  /** `metadata` is a patch: a key set to "" is removed. */
  | {
      type: 'UpdateAccountProfile';
      /** `business`: a business account's DAC7 identity, when it has none yet. */
      data: { displayName?: string | undefined; metadata?: PartnerMetadata | undefined; business?: BusinessIdentityInput | undefined };
      metadata: CommandMeta;
    };

export const initialAccount = (): Account => ({ status: 'none' });

export const evolveAccount = (state: Account, event: AccountEvent): Account => {
  if (event.type === 'AccountRegistered') return { status: 'registered', ...event.data, business: null, ledgerAccount: null, partner: null, metadata: {} };
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'BusinessIdentityCaptured': {
      const { companyName, siret, taxCountry, taxId, rccm } = event.data;
      return { ...state, accountType: 'BUSINESS', business: { companyName, siret, taxCountry, taxId, rccm } };
    }
    case 'LedgerAccountLinked':
      return { ...state, ledgerAccount: event.data.ledgerAccount };
    case 'RoleGranted':
      return { ...state, role: event.data.role };
    case 'PasswordResetCompleted':
      // An audit record: the password itself lives in the credentials table.
      return state;
    case 'AccountCreatedByPartner': {
      const { livemode, createdVia, metadata } = event.data;
      return { ...state, partner: { livemode, createdVia }, metadata };
    }
    case 'AccountProfileUpdated': {
      const { displayName, metadata } = event.data;
      return { ...state, displayName: displayName ?? state.displayName, metadata: metadata ?? state.metadata };
    }
    default:
      return assertNever(event);
  }
};

/** The account's aggregates (account, organiser grants, mandates) all start at `none`: no AccountRegistered yet. */
export const requireAccount = <S extends { status: string }>(state: S): Exclude<S, { status: 'none' }> => {
  if (state.status === 'none') throw new NotFoundError('account');
  return state as Exclude<S, { status: 'none' }>;
};

const businessIdentityOrThrow = (input: BusinessIdentityInput): BusinessIdentity => {
  const checked = checkBusinessIdentity(input);
  if ('errors' in checked) throw new ValidationError(checked.errors, 'A valid business identity is required (DAC7)', 'business_identity_invalid');
  return checked.identity;
};

/** The partner metadata after a patch: a key set to "" is removed. */
export const patchMetadata = (current: PartnerMetadata, patch: PartnerMetadata): PartnerMetadata => {
  const next: PartnerMetadata = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === '') delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > 50) throw new ValidationError({ metadata: ['at most 50 keys'] });
  return next;
};

const register = (input: AccountInput, business: BusinessIdentityInput | null, now: string): AccountEvent[] => {
  const identity = business ? businessIdentityOrThrow(business) : null;
  const registered: AccountEvent = {
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
  };
  if (!identity) return [registered];
  return [registered, { type: 'BusinessIdentityCaptured', data: { userId: input.userId, ...identity, via: 'register', capturedAt: now } }];
};

export const decideAccount = (command: AccountCommand, state: Account): AccountEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'RegisterAccount': {
      if (state.status !== 'none') throw new ConflictError('account_exists', 'Account already exists');
      const { business, ...input } = command.data;
      return register(input, business, now);
    }
    case 'CreateAccountForPartner': {
      if (state.status !== 'none') throw new ConflictError('account_exists', 'Account already exists');
      const { business, livemode, createdVia, metadata, ...input } = command.data;
      return [
        ...register(input, business, now),
        { type: 'AccountCreatedByPartner', data: { userId: input.userId, tenantId: input.tenantId, livemode, createdVia, metadata: patchMetadata({}, metadata), createdAt: now } },
      ];
    }
    case 'UpdateAccountProfile': {
      const account = requireAccount(state);
      const { displayName, metadata, business } = command.data;
      const captured: AccountEvent[] = [];
      if (business) {
        if (account.accountType !== 'BUSINESS') throw new ValidationError({ business: ['only for a business account'] });
        if (account.business) throw new IllegalStateError('business_identity_recorded', 'The business identity is already recorded');
        captured.push({ type: 'BusinessIdentityCaptured', data: { userId: account.userId, ...businessIdentityOrThrow(business), via: 'partner', capturedAt: now } });
      }
      const nextName = displayName !== undefined && displayName !== account.displayName ? displayName : undefined;
      const current = account.metadata;
      const nextMetadata = metadata ? patchMetadata(current, metadata) : undefined;
      const metadataChanged = nextMetadata !== undefined && JSON.stringify(Object.entries(nextMetadata).sort()) !== JSON.stringify(Object.entries(current).sort());
      if (nextName === undefined && !metadataChanged) return captured;
      return [
        ...captured,
        {
          type: 'AccountProfileUpdated',
          data: {
            userId: account.userId,
            ...(account.partner ? { livemode: account.partner.livemode } : {}),
            ...(nextName !== undefined ? { displayName: nextName } : {}), ...(metadataChanged ? { metadata: nextMetadata } : {}), updatedAt: now },
        },
      ];
    }
    case 'CaptureBusinessIdentity': {
      const account = requireAccount(state);
      // Become-seller on a business account changes nothing: the identity on record stays.
      if (account.accountType === 'BUSINESS') return [];
      const identity = businessIdentityOrThrow(command.data);
      return [{ type: 'BusinessIdentityCaptured', data: { userId: account.userId, ...identity, via: 'become-seller', capturedAt: now } }];
    }
    case 'LinkLedgerAccount': {
      const account = requireAccount(state);
      if (account.ledgerAccount === command.data.ledgerAccount) return [];
      const mode = account.partner ? { livemode: account.partner.livemode } : {};
      return [{ type: 'LedgerAccountLinked', data: { userId: account.userId, ...command.data, ...mode, linkedAt: now } }];
    }
    case 'RecordPasswordReset': {
      const account = requireAccount(state);
      return [{ type: 'PasswordResetCompleted', data: { userId: account.userId, ...command.data, resetAt: now } }];
    }
    default:
      return assertNever(command);
  }
};
