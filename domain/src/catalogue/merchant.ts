import type { DomainEvent, EventData, MerchantProfileFields, MerchantStatus } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, assertNever } from '../errors';
import { jsonEqual } from '../equal';

export type Merchant =
  | { status: 'none' }
  | {
      status: MerchantStatus;
      id: string;
      tenantId: string;
      slug: string;
      ownerUserId: string | null;
      profile: MerchantProfileFields;
      onboardedAt: string;
      updatedAt: string;
    };
export type ExistingMerchant = Exclude<Merchant, { status: 'none' }>;

export const initialMerchant = (): Merchant => ({ status: 'none' });

export type MerchantCommand =
  | {
      type: 'OnboardMerchant';
      data: { merchantId: string; tenantId: string; slug: string; ownerUserId: string | null; profile: MerchantProfileFields };
      now: string;
    }
  | { type: 'UpdateMerchantProfile'; data: { changes: Partial<MerchantProfileFields> }; now: string }
  | { type: 'ActivateMerchant'; now: string }
  | { type: 'SuspendMerchant'; data: { reason: string }; now: string };

const existing = (state: Merchant): ExistingMerchant => {
  if (state.status === 'none') throw new NotFoundError('merchant');
  return state;
};

/** Merchants live in stream `merchant-<tenantId>-<slug>`: no_stream makes the slug unique per tenant. */
export const decideMerchant = (command: MerchantCommand, state: Merchant): DomainEvent[] => {
  switch (command.type) {
    case 'OnboardMerchant':
      if (state.status !== 'none') throw new ConflictError('merchant_slug_taken', `Merchant ${command.data.slug} already exists in this tenant`);
      return [{ type: 'MerchantOnboarded', data: { ...command.data.profile, ...omitProfile(command.data), onboardedAt: command.now } }];
    case 'UpdateMerchantProfile': {
      const m = existing(state);
      const changes = Object.fromEntries(
        Object.entries(command.data.changes).filter(([k, v]) => v !== undefined && !jsonEqual(m.profile[k as keyof MerchantProfileFields], v)),
      );
      return Object.keys(changes).length === 0 ? [] : [{ type: 'MerchantProfileUpdated', data: { merchantId: m.id, changes, updatedAt: command.now } }];
    }
    case 'ActivateMerchant': {
      const m = existing(state);
      if (m.status === 'ACTIVE') return [];
      return [{ type: 'MerchantActivated', data: { merchantId: m.id, activatedAt: command.now } }];
    }
    case 'SuspendMerchant': {
      const m = existing(state);
      if (m.status === 'SUSPENDED') throw new IllegalStateError('merchant_already_suspended', 'Merchant is already suspended');
      return [{ type: 'MerchantSuspended', data: { merchantId: m.id, reason: command.data.reason, suspendedAt: command.now } }];
    }
    default:
      return assertNever(command);
  }
};

const omitProfile = (d: Extract<MerchantCommand, { type: 'OnboardMerchant' }>['data']) => ({
  merchantId: d.merchantId,
  tenantId: d.tenantId,
  slug: d.slug,
  ownerUserId: d.ownerUserId,
});

const onboarded = (d: EventData<'MerchantOnboarded'>): ExistingMerchant => {
  const { merchantId, tenantId, slug, ownerUserId, onboardedAt, ...profile } = d;
  return { status: 'ONBOARDING', id: merchantId, tenantId, slug, ownerUserId, profile, onboardedAt, updatedAt: onboardedAt };
};

export const evolveMerchant = (state: Merchant, event: DomainEvent): Merchant => {
  if (event.type === 'MerchantOnboarded') return onboarded(event.data);
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'MerchantProfileUpdated':
      return { ...state, profile: { ...state.profile, ...event.data.changes }, updatedAt: event.data.updatedAt };
    case 'MerchantActivated':
      return { ...state, status: 'ACTIVE', updatedAt: event.data.activatedAt };
    case 'MerchantSuspended':
      return { ...state, status: 'SUSPENDED', updatedAt: event.data.suspendedAt };
    default:
      return state;
  }
};
