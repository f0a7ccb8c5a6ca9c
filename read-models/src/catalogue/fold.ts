import type { EventData, MerchantEvent, MerchantProfileFields, MerchantStatus } from '@cagnotte/event-schemas';
import type { LeadRow, MerchantRow } from './tables';

/**
 * The catalogue read model's own document of a merchant, folded from the merchant's events alone (not the
 * aggregate's state). Its JSON keeps the keys documents stored before it had (rm_search_sources), so they read as is.
 */
export interface MerchantDocument {
  status: MerchantStatus;
  id: string;
  tenantId: string;
  slug: string;
  ownerUserId: string | null;
  profile: MerchantProfileFields;
  onboardedAt: string;
  updatedAt: string;
}

export interface MerchantDoc {
  merchant: MerchantDocument;
  /** Stream revision of the last event folded in: replays at or below it change nothing. */
  revision: bigint;
}

const onboarded = (d: EventData<'MerchantOnboarded'>): MerchantDocument => {
  const { merchantId, tenantId, slug, ownerUserId, onboardedAt, ...profile } = d;
  return { status: 'ONBOARDING', id: merchantId, tenantId, slug, ownerUserId, profile, onboardedAt, updatedAt: onboardedAt };
};

/** `never`: the switch below is exhaustive over MerchantEvent. */
const unknownEvent = (_event: never, doc: MerchantDocument): MerchantDocument => doc;

const evolve = (doc: MerchantDocument, event: MerchantEvent): MerchantDocument => {
  switch (event.type) {
    case 'MerchantOnboarded':
      return onboarded(event.data);
    case 'MerchantProfileUpdated':
      return { ...doc, profile: { ...doc.profile, ...event.data.changes }, updatedAt: event.data.updatedAt };
    case 'MerchantActivated':
      return { ...doc, status: 'ACTIVE', updatedAt: event.data.activatedAt };
    case 'MerchantSuspended':
      return { ...doc, status: 'SUSPENDED', updatedAt: event.data.suspendedAt };
    default:
      return unknownEvent(event, doc);
  }
};

/**
 * Pure and replay-safe: an event already folded (revision ≤ doc.revision) returns the doc unchanged; before
 * MerchantOnboarded there is no document.
 */
export const foldMerchant = (doc: MerchantDoc | null, event: MerchantEvent, revision: bigint): MerchantDoc | null => {
  if (doc && revision <= doc.revision) return doc;
  if (event.type === 'MerchantOnboarded') return { merchant: onboarded(event.data), revision };
  if (!doc) return null;
  return { merchant: evolve(doc.merchant, event), revision };
};

/** The document an `rm_merchants` row holds. */
export const merchantDocOfRow = (r: MerchantRow): MerchantDoc => ({
  merchant: {
    status: r.status as MerchantStatus,
    id: r.id,
    tenantId: r.tenant_id,
    slug: r.slug,
    ownerUserId: r.owner_user_id,
    profile: r.profile,
    onboardedAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  },
  revision: BigInt(r.revision),
});

/** The `rm_merchants` row of a document (profile as JSON text for the jsonb column). */
export const merchantRowOf = ({ merchant: m, revision }: MerchantDoc) => ({
  id: m.id,
  tenant_id: m.tenantId,
  owner_user_id: m.ownerUserId,
  slug: m.slug,
  name: m.profile.name,
  status: m.status,
  profile: JSON.stringify(m.profile),
  created_at: m.onboardedAt,
  updated_at: m.updatedAt,
  revision: revision.toString(),
});

/** The `rm_leads` row of a pilot request. */
export const leadRowOf = (d: EventData<'PilotRequested'>): LeadRow => ({
  id: d.leadId,
  tenant_id: d.tenantId,
  visitor_id: d.visitorId,
  email: d.email,
  company: d.company,
  attribution: JSON.stringify(d.attribution),
  requested_at: d.requestedAt,
});
