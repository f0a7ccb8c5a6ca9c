import { z } from 'zod';
import { event, type EventOf } from '../define';
import { CountryCode, Id, IsoDate } from '../common';

export const MerchantStatus = z.enum(['ONBOARDING', 'ACTIVE', 'SUSPENDED']);
export type MerchantStatus = z.infer<typeof MerchantStatus>;

export const StorefrontLinks = z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/), z.string().url().max(2000)).describe('e.g. { website, instagram, facebook }');
export const MerchantAddress = z
  .object({
    line1: z.string().max(300).optional(),
    postalCode: z.string().max(16).optional(),
    city: z.string().max(120).optional(),
    country: CountryCode.optional(),
  })
  .strict();
export const GeoLocation = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).strict();

/** Fields of a merchant profile, all editable after onboarding but the slug. */
export const MerchantProfileFields = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(5000),
    storefrontLinks: StorefrontLinks,
    address: MerchantAddress,
    location: GeoLocation.nullable(),
    categories: z.array(z.string().min(1).max(60)).max(20),
  })
  .strict();
export type MerchantProfileFields = z.infer<typeof MerchantProfileFields>;

export const MerchantOnboarded = event(
  'MerchantOnboarded',
  1,
  MerchantProfileFields.extend({
    merchantId: Id,
    tenantId: Id,
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
    ownerUserId: Id.nullable(),
    onboardedAt: IsoDate,
  }).strict(),
);
export const MerchantProfileUpdated = event(
  'MerchantProfileUpdated',
  1,
  z.object({ merchantId: Id, changes: MerchantProfileFields.partial(), updatedAt: IsoDate }).strict(),
);
export const MerchantActivated = event('MerchantActivated', 1, z.object({ merchantId: Id, activatedAt: IsoDate }).strict());
export const MerchantSuspended = event(
  'MerchantSuspended',
  1,
  z.object({ merchantId: Id, reason: z.string().max(500), suspendedAt: IsoDate }).strict(),
);

export const Attribution = z
  .object({
    utm_source: z.string().max(200).optional(),
    utm_medium: z.string().max(200).optional(),
    utm_campaign: z.string().max(200).optional(),
    utm_term: z.string().max(200).optional(),
    utm_content: z.string().max(200).optional(),
    referrer: z.string().max(2000).optional(),
  })
  .strict();
export type Attribution = z.infer<typeof Attribution>;

export const PilotRequested = event(
  'PilotRequested',
  1,
  z
    .object({
      leadId: Id,
      tenantId: Id,
      visitorId: z.string().max(128),
      contactName: z.string().max(200),
      email: z.string().email(),
      phone: z.string().max(40).nullable(),
      company: z.string().max(200),
      role: z.string().max(120).nullable(),
      volume: z.string().max(40),
      message: z.string().max(5000),
      consentAt: IsoDate,
      /** The visitor's first-touch attribution (kept from their first visit, not this request's). */
      attribution: Attribution,
      requestedAt: IsoDate,
    })
    .strict(),
);

/** Stream `visitor-<tenant>-<visitorId>` with no_stream: first touch is recorded once per visitor. */
export const VisitorFirstTouched = event(
  'VisitorFirstTouched',
  1,
  z.object({ tenantId: Id, visitorId: z.string().max(128), attribution: Attribution, touchedAt: IsoDate }).strict(),
);

export const catalogueEvents = [MerchantOnboarded, MerchantProfileUpdated, MerchantActivated, MerchantSuspended, PilotRequested, VisitorFirstTouched] as const;

const merchantEvents = [MerchantOnboarded, MerchantProfileUpdated, MerchantActivated, MerchantSuspended] as const;
/** The events a merchant stream (`merchant-<tenant>-<slug>`) holds: what the merchant aggregate and the merchants read model fold. */
export type MerchantEvent = EventOf<(typeof merchantEvents)[number]>;
const MERCHANT_EVENT_TYPES: ReadonlySet<string> = new Set(merchantEvents.map((d) => d.type));
/** Narrows an event of the feed to a merchant event. */
export const isMerchantEvent = <E extends { type: string }>(e: E): e is Extract<E, MerchantEvent> => MERCHANT_EVENT_TYPES.has(e.type);

/** A visitor stream (`visitor-<tenant>-<visitorId>`) holds its first touch; a lead stream (`lead-<leadId>`) its pilot request. */
export type VisitorEvent = EventOf<typeof VisitorFirstTouched>;
export type LeadEvent = EventOf<typeof PilotRequested>;
