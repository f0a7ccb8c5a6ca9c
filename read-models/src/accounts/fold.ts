import type { FoldEvent } from '../shared';

/**
 * The /v1 account document (rm_v1_accounts): every account of a tenant, a signup's as a partner's, folded from the
 * account stream's events. `livemode` is null for a signup (it belongs to the environment's mode), the key's mode for
 * a partner's. `revision` is the stream revision of the last event folded in, so a replayed event changes nothing.
 */
export interface V1AccountDoc {
  userId: string;
  tenantId: string;
  livemode: boolean | null;
  createdVia: string | null;
  email: string;
  name: string;
  accountType: 'CONSUMER' | 'BUSINESS';
  country: string;
  business: { companyName: string; siret: string | null; taxCountry: string; taxId: string | null; rccm: string | null } | null;
  wallet: string | null;
  metadata: Record<string, string>;
  createdAt: string;
  revision: bigint;
}

export const V1_ACCOUNT_EVENTS: ReadonlySet<string> = new Set([
  'AccountRegistered',
  'BusinessIdentityCaptured',
  'LedgerAccountLinked',
  'AccountCreatedByPartner',
  'AccountProfileUpdated',
]);

export const v1AccountKeyOf = (e: FoldEvent): string | null => {
  switch (e.type) {
    case 'AccountRegistered':
    case 'BusinessIdentityCaptured':
    case 'LedgerAccountLinked':
    case 'AccountCreatedByPartner':
    case 'AccountProfileUpdated':
      return e.data.userId;
    default:
      return null;
  }
};

export const foldV1Account = (doc: V1AccountDoc | null, e: FoldEvent): V1AccountDoc | null => {
  if (doc !== null && e.revision <= doc.revision) return doc;
  if (e.type === 'AccountRegistered') {
    if (doc) return doc;
    const d = e.data;
    return {
      userId: d.userId,
      tenantId: d.tenantId,
      livemode: null,
      createdVia: null,
      email: d.email,
      name: d.displayName,
      accountType: d.accountType,
      country: d.country,
      business: null,
      wallet: null,
      metadata: {},
      createdAt: d.registeredAt,
      revision: e.revision,
    };
  }
  if (!doc) return doc;
  switch (e.type) {
    case 'BusinessIdentityCaptured': {
      const { companyName, siret, taxCountry, taxId, rccm } = e.data;
      return { ...doc, accountType: 'BUSINESS', business: { companyName, siret, taxCountry, taxId, rccm }, revision: e.revision };
    }
    case 'LedgerAccountLinked':
      return { ...doc, wallet: e.data.ledgerAccount, revision: e.revision };
    case 'AccountCreatedByPartner':
      return { ...doc, livemode: e.data.livemode, createdVia: e.data.createdVia, metadata: e.data.metadata, revision: e.revision };
    case 'AccountProfileUpdated':
      return { ...doc, name: e.data.displayName ?? doc.name, metadata: e.data.metadata ?? doc.metadata, revision: e.revision };
    default:
      return doc;
  }
};
