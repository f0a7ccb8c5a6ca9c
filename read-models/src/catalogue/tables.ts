import type { MerchantProfileFields, MerchantStatus } from '@cagnotte/event-schemas';

/** The catalogue's tables: merchant profiles (the `merchants` projection) and leads (the `leads` projection). */
export const CATALOGUE_TABLES = { merchants: 'rm_merchants', leads: 'rm_leads' } as const;

/** A row of `rm_merchants`, as the merchants projection writes it. */
export interface MerchantRow {
  id: string;
  tenant_id: string;
  owner_user_id: string | null;
  slug: string;
  name: string;
  status: MerchantStatus | string;
  profile: MerchantProfileFields;
  created_at: Date | string;
  updated_at: Date | string;
  revision: string;
}

/** A row of `rm_leads`: a pilot request with its first-touch attribution, for the operators' follow-up. */
export interface LeadRow {
  id: string;
  tenant_id: string;
  visitor_id: string;
  email: string;
  company: string;
  /** JSON text on insert (jsonb column). */
  attribution: string;
  requested_at: string;
}
