import type { V1AccountDoc } from './fold';

export const V1_ACCOUNTS_TABLE = 'rm_v1_accounts';

/** A row as read back (timestamptz as Date, jsonb parsed, bigint as a decimal string). */
export interface V1AccountRow {
  id: string;
  seq: string;
  tenant_id: string;
  livemode: boolean | null;
  created_via: string | null;
  email: string;
  name: string;
  account_type: 'CONSUMER' | 'BUSINESS';
  country: string;
  business: V1AccountDoc['business'];
  wallet: string | null;
  metadata: Record<string, string>;
  created_at: Date | string;
  revision: string;
}

/** The row a document writes (`seq` is the table's own, given on the first insert). */
export const v1AccountRowOf = (d: V1AccountDoc) => ({
  id: d.userId,
  tenant_id: d.tenantId,
  livemode: d.livemode,
  created_via: d.createdVia,
  email: d.email,
  name: d.name,
  account_type: d.accountType,
  country: d.country,
  // jsonb: written as JSON text.
  business: d.business === null ? null : JSON.stringify(d.business),
  wallet: d.wallet,
  metadata: JSON.stringify(d.metadata),
  created_at: d.createdAt,
  revision: d.revision.toString(),
});

export const v1AccountDocOf = (r: V1AccountRow): V1AccountDoc => ({
  userId: r.id,
  tenantId: r.tenant_id,
  livemode: r.livemode,
  createdVia: r.created_via,
  email: r.email,
  name: r.name,
  accountType: r.account_type,
  country: r.country,
  business: r.business,
  wallet: r.wallet,
  metadata: r.metadata ?? {},
  createdAt: new Date(r.created_at).toISOString(),
  revision: BigInt(r.revision),
});
