import type { DomainEvent, EventData, FeeSchedule, TenantSettings } from '@cagnotte/event-schemas';
import { jsonEqual } from '../equal';
import { ConflictError, NotFoundError, ValidationError, assertNever, type FieldErrors } from '../errors';
import { LEDGER_AMOUNT_EXCEEDED, fitsLedger, ledgerBoundMessage, parseAmount } from '../money';

/**
 * A tenant's stream `tenant-<slug>` holds its TenantCreated, then its settings changes and its auditors: the slug is
 * the stream's name, so it is unique.
 */
export type TenantEvent = Extract<DomainEvent, { type: 'TenantCreated' | 'TenantSettingsChanged' | 'TenantAuditorGranted' | 'TenantAuditorRevoked' | 'TenantFeeScheduleSet' | 'TenantVerified' | 'TenantVerificationWithdrawn' }>;

const TENANT_EVENT_TYPES: ReadonlySet<string> = new Set<TenantEvent['type']>(['TenantCreated', 'TenantSettingsChanged', 'TenantAuditorGranted', 'TenantAuditorRevoked', 'TenantFeeScheduleSet', 'TenantVerified', 'TenantVerificationWithdrawn']);
export const isTenantEvent = (event: DomainEvent): event is TenantEvent => TENANT_EVENT_TYPES.has(event.type);

export type Tenant =
  | { status: 'none' }
  | ({
      status: 'created';
      settings: TenantSettings;
      /** The users who audit the tenant's pools, in the order they were granted. */
      auditors: string[];
      /** The fee schedule an operator set (docs/fees.md), or null: the default schedule applies. */
      feeSchedule: FeeSchedule | null;
      /** When an operator verified the tenant as a business (live API keys), or null. */
      verifiedAt: string | null;
    } & EventData<'TenantCreated'>);

export interface TenantInput {
  tenantId: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

/**
 * `accountTenantId`: the tenant the user's account belongs to, as the user's own stream says (null when there is no
 * such account). The handler reads it; the decision stays pure.
 */
export type TenantCommand =
  | { type: 'CreateTenant'; data: TenantInput; metadata: { now: string } }
  | { type: 'ChangeTenantSettings'; data: { settings: TenantSettings }; metadata: { now: string } }
  | { type: 'GrantAuditor'; data: { userId: string; accountTenantId: string | null }; metadata: { now: string } }
  | { type: 'RevokeAuditor'; data: { userId: string }; metadata: { now: string } }
  /** `current`: the schedule in force (the one set, else the default), so that setting it again records nothing. */
  | { type: 'SetFeeSchedule'; data: { schedule: FeeSchedule; current: FeeSchedule }; metadata: { now: string } }
  | { type: 'VerifyTenant'; data: { note: string | null }; metadata: { now: string } }
  | { type: 'WithdrawTenantVerification'; data: { note: string | null }; metadata: { now: string } };

export const initialTenant = (): Tenant => ({ status: 'none' });

export const evolveTenant = (state: Tenant, event: TenantEvent): Tenant => {
  switch (event.type) {
    case 'TenantCreated':
      return { status: 'created', settings: {}, auditors: [], feeSchedule: null, verifiedAt: null, ...event.data };
    case 'TenantSettingsChanged':
      return state.status === 'none' ? state : { ...state, settings: { ...state.settings, ...event.data.settings } };
    case 'TenantAuditorGranted':
      return state.status === 'none' || state.auditors.includes(event.data.userId) ? state : { ...state, auditors: [...state.auditors, event.data.userId] };
    case 'TenantAuditorRevoked':
      return state.status === 'none' ? state : { ...state, auditors: state.auditors.filter((id) => id !== event.data.userId) };
    case 'TenantFeeScheduleSet':
      return state.status === 'none' ? state : { ...state, feeSchedule: event.data.schedule };
    case 'TenantVerified':
      return state.status === 'none' ? state : { ...state, verifiedAt: event.data.verifiedAt };
    case 'TenantVerificationWithdrawn':
      return state.status === 'none' ? state : { ...state, verifiedAt: null };
    default:
      return assertNever(event);
  }
};

const requireTenant = (state: Tenant): Extract<Tenant, { status: 'created' }> => {
  if (state.status === 'none') throw new NotFoundError('tenant');
  return state;
};

/**
 * A slug already taken is a conflict. Decided on the stream as read: when two creations race, the loser's append
 * fails on `no_stream`, the command runs again on the fresh stream and lands here.
 */
/**
 * Every amount of a fee schedule is paid (or capped) as one ledger payment: past MAX_LEDGER_AMOUNT, a listing or an
 * activation could never be paid, so the schedule is refused naming the field (as a request amount would be).
 */
const requireFeesFitLedger = (s: FeeSchedule): void => {
  const amounts: Array<[string, string | null]> = [
    ['organiserActivation', s.organiserActivation],
    ['listing.LISTED', s.listing.LISTED],
    ['listing.FEATURED', s.listing.FEATURED],
    ...(['payment', 'escrowDeposit'] as const).flatMap((rule) => (['fixed', 'min', 'cap'] as const).map((k): [string, string | null] => [`${rule}.${k}`, s[rule][k]])),
  ];
  const errors: FieldErrors = {};
  for (const [field, amount] of amounts) if (amount !== null && !fitsLedger(parseAmount(amount))) errors[field] = [ledgerBoundMessage('a fee')];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'A fee is past what one ledger payment can carry', LEDGER_AMOUNT_EXCEEDED);
};

export const decideTenant = (command: TenantCommand, state: Tenant): TenantEvent[] => {
  switch (command.type) {
    case 'CreateTenant': {
      const input = command.data;
      if (state.status !== 'none') throw new ConflictError('tenant_exists', `Tenant ${input.slug} already exists`);
      return [{ type: 'TenantCreated', data: { ...input, approvedOrigins: [...new Set(input.approvedOrigins)], createdAt: command.metadata.now } }];
    }
    case 'ChangeTenantSettings': {
      const tenant = requireTenant(state);
      // Only what changes is recorded; setting the same values again records nothing.
      const changes = Object.fromEntries(
        Object.entries(command.data.settings).filter(([k, v]) => v !== undefined && JSON.stringify(tenant.settings[k as keyof TenantSettings]) !== JSON.stringify(v)),
      ) as TenantSettings;
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'TenantSettingsChanged', data: { tenantId: tenant.tenantId, settings: changes, changedAt: command.metadata.now } }];
    }
    case 'GrantAuditor': {
      const tenant = requireTenant(state);
      const { userId, accountTenantId } = command.data;
      // An auditor reads the tenant's pools as one of its users: someone else's account (or none) is not a user of it.
      if (accountTenantId !== tenant.tenantId) throw new NotFoundError('account');
      if (tenant.auditors.includes(userId)) return [];
      return [{ type: 'TenantAuditorGranted', data: { tenantId: tenant.tenantId, userId, grantedAt: command.metadata.now } }];
    }
    case 'RevokeAuditor': {
      const tenant = requireTenant(state);
      if (!tenant.auditors.includes(command.data.userId)) return [];
      return [{ type: 'TenantAuditorRevoked', data: { tenantId: tenant.tenantId, userId: command.data.userId, revokedAt: command.metadata.now } }];
    }
    case 'SetFeeSchedule': {
      const tenant = requireTenant(state);
      // Becoming an organiser is a payment on the ledger: a fee of nothing could never be paid.
      if (parseAmount(command.data.schedule.organiserActivation) <= 0n) throw new ValidationError({ organiserActivation: ['the activation fee is a payment: above 0'] });
      requireFeesFitLedger(command.data.schedule);
      if (jsonEqual(tenant.feeSchedule ?? command.data.current, command.data.schedule)) return [];
      return [{ type: 'TenantFeeScheduleSet', data: { tenantId: tenant.tenantId, schedule: command.data.schedule, setAt: command.metadata.now } }];
    }
    case 'VerifyTenant': {
      const tenant = requireTenant(state);
      if (tenant.verifiedAt) return [];
      return [{ type: 'TenantVerified', data: { tenantId: tenant.tenantId, verifiedAt: command.metadata.now, note: command.data.note } }];
    }
    case 'WithdrawTenantVerification': {
      const tenant = requireTenant(state);
      if (!tenant.verifiedAt) return [];
      return [{ type: 'TenantVerificationWithdrawn', data: { tenantId: tenant.tenantId, withdrawnAt: command.metadata.now, note: command.data.note } }];
    }
    default:
      return assertNever(command);
  }
};
