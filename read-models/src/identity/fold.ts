import type { FoldEvent } from '../shared';

/**
 * The identity read model's own documents, folded from events (not the account aggregate's state): a tenant
 * and an account as the rm_tenants and rm_accounts rows hold them. `revision` is the stream revision of the
 * last event folded in, so a replayed event (at or below it) changes nothing.
 */
export interface TenantDoc {
  tenantId: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
  createdAt: string;
  revision: bigint;
}

export interface AccountDoc {
  userId: string;
  tenantId: string;
  email: string;
  phone: string | null;
  displayName: string;
  role: string;
  accountType: string;
  country: string;
  currency: string;
  timezone: string;
  signupSource: string;
  registeredAt: string;
  ledgerAccount: string | null;
  companyName: string | null;
  siret: string | null;
  taxCountry: string | null;
  taxId: string | null;
  rccm: string | null;
  revision: bigint;
}

export const TENANT_EVENTS: ReadonlySet<string> = new Set(['TenantCreated']);
export const ACCOUNT_EVENTS: ReadonlySet<string> = new Set(['AccountRegistered', 'BusinessIdentityCaptured', 'LedgerAccountLinked', 'RoleGranted', 'AccountProfileUpdated']);

/** Which tenant document an event folds into, or null when it is not a tenant event. */
export const tenantKeyOf = (e: FoldEvent): string | null => (e.type === 'TenantCreated' ? e.data.tenantId : null);

/** Which account document an event folds into (its `userId`), or null when it is not an account event. */
export const accountKeyOf = (e: FoldEvent): string | null => {
  switch (e.type) {
    case 'AccountRegistered':
    case 'BusinessIdentityCaptured':
    case 'LedgerAccountLinked':
    case 'RoleGranted':
    case 'AccountProfileUpdated':
      return e.data.userId;
    default:
      return null;
  }
};

const replayed = (doc: { revision: bigint } | null, e: FoldEvent) => doc !== null && e.revision <= doc.revision;

export const foldTenant = (doc: TenantDoc | null, e: FoldEvent): TenantDoc | null => {
  if (replayed(doc, e) || e.type !== 'TenantCreated') return doc;
  const d = e.data;
  // A second TenantCreated for the same id (a later revision) restates the tenant; createdAt stays the first one's.
  return {
    tenantId: d.tenantId,
    slug: d.slug,
    name: d.name,
    whiteLabel: d.whiteLabel,
    approvedOrigins: d.approvedOrigins,
    createdAt: doc?.createdAt ?? d.createdAt,
    revision: e.revision,
  };
};

export const foldAccount = (doc: AccountDoc | null, e: FoldEvent): AccountDoc | null => {
  if (replayed(doc, e)) return doc;
  if (e.type === 'AccountRegistered') {
    if (doc) return doc; // the first registration stands
    const d = e.data;
    return {
      userId: d.userId,
      tenantId: d.tenantId,
      email: d.email,
      phone: d.phone,
      displayName: d.displayName,
      role: d.role,
      accountType: d.accountType,
      country: d.country,
      currency: d.currency,
      timezone: d.timezone,
      signupSource: d.signupSource,
      registeredAt: d.registeredAt,
      ledgerAccount: null,
      companyName: null,
      siret: null,
      taxCountry: null,
      taxId: null,
      rccm: null,
      revision: e.revision,
    };
  }
  // Anything before the registration has no account to change.
  if (!doc) return doc;
  switch (e.type) {
    case 'BusinessIdentityCaptured': {
      const { companyName, siret, taxCountry, taxId, rccm } = e.data;
      return { ...doc, accountType: 'BUSINESS', companyName, siret, taxCountry, taxId, rccm, revision: e.revision };
    }
    case 'LedgerAccountLinked':
      return { ...doc, ledgerAccount: e.data.ledgerAccount, revision: e.revision };
    case 'RoleGranted':
      return { ...doc, role: e.data.role, revision: e.revision };
    case 'AccountProfileUpdated':
      // A partner renamed the account (/v1/accounts): the name shown in /api too.
      return e.data.displayName === undefined ? { ...doc, revision: e.revision } : { ...doc, displayName: e.data.displayName, revision: e.revision };
    default:
      return doc;
  }
};
