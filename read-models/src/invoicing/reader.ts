import type { Knex } from 'knex';
import type { EventData, InvoiceKind } from '@cagnotte/event-schemas';

export const INVOICES_TABLE = 'rm_invoices';

export interface InvoiceRow {
  invoice_id: string;
  tenant_id: string;
  issuer_kind: string;
  issuer_id: string;
  recipient_kind: string;
  recipient_id: string;
  kind: string;
  type_code: string;
  number: string;
  sequence: number;
  issue_date: string;
  /** Null for an organiser activation fee (migration 024). */
  pool_id: string | null;
  reservation_id: string | null;
  corrects: string | null;
  source_key: string;
  grand_total: string;
  document: EventData<'InvoiceIssued'>['document'];
  issued_at: string | Date;
}

/** The row of an InvoiceIssued: a pure function of the event (the projection inserts it once). */
export const invoiceRowOf = (d: EventData<'InvoiceIssued'>): InvoiceRow => ({
  invoice_id: d.invoiceId,
  tenant_id: d.tenantId,
  issuer_kind: d.issuer.kind,
  issuer_id: d.issuer.id,
  recipient_kind: d.recipient.kind,
  recipient_id: d.recipient.id,
  kind: d.kind,
  type_code: d.document.typeCode,
  number: d.document.number,
  sequence: d.sequence,
  issue_date: d.document.issueDate,
  pool_id: d.poolId ?? null,
  reservation_id: d.reservationId ?? null,
  corrects: d.corrects ?? null,
  source_key: d.sourceKey,
  grand_total: d.document.totals.grandTotal,
  document: d.document,
  issued_at: d.issuedAt,
});

export interface InvoiceFilter {
  /** received: the caller is the recipient; issued: the caller is the issuer; all: either. Absent (auditors): the whole tenant. */
  party?: { userId: string; direction: 'received' | 'issued' | 'all' };
  kind?: InvoiceKind;
  type?: '380' | '381';
  poolId?: string;
  from?: string;
  to?: string;
}

const day = (v: string | Date): string => (v instanceof Date ? `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}` : v.slice(0, 10));
const normalise = (r: InvoiceRow): InvoiceRow => ({ ...r, issue_date: day(r.issue_date), issued_at: new Date(r.issued_at).toISOString() });

export class InvoiceReadModel {
  constructor(private readonly knex: Knex) {}

  private scoped(tenantId: string, f: InvoiceFilter) {
    const q = this.knex<InvoiceRow>(INVOICES_TABLE).where({ tenant_id: tenantId });
    if (f.party) {
      const { userId, direction } = f.party;
      const recipient = (b: Knex.QueryBuilder) => b.where({ recipient_kind: 'account', recipient_id: userId });
      const issuer = (b: Knex.QueryBuilder) => b.where({ issuer_kind: 'account', issuer_id: userId });
      if (direction === 'received') q.where(recipient);
      else if (direction === 'issued') q.where(issuer);
      else q.where((b) => b.where(recipient).orWhere(issuer));
    }
    if (f.kind) q.where({ kind: f.kind });
    if (f.type) q.where({ type_code: f.type });
    if (f.poolId) q.where({ pool_id: f.poolId });
    if (f.from) q.where('issue_date', '>=', f.from);
    if (f.to) q.where('issue_date', '<=', f.to);
    return q;
  }

  /** Newest first (by issue date, then number). */
  async list(tenantId: string, filter: InvoiceFilter, page: number, limit: number): Promise<{ rows: InvoiceRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.scoped(tenantId, filter).orderBy([{ column: 'issue_date', order: 'desc' }, { column: 'issued_at', order: 'desc' }, { column: 'number', order: 'desc' }]).offset((page - 1) * limit).limit(limit),
      this.scoped(tenantId, filter).count<{ count: string }[]>('* as count').first(),
    ]);
    return { rows: (rows as InvoiceRow[]).map(normalise), total: Number((count as { count: string } | undefined)?.count ?? 0) };
  }

  /** The invoice of one source (`request:<requestId>`, …) by its issuer, if issued. */
  async bySource(tenantId: string, issuer: { kind: string; id: string }, sourceKey: string): Promise<InvoiceRow | null> {
    const row = await this.knex<InvoiceRow>(INVOICES_TABLE).where({ tenant_id: tenantId, issuer_kind: issuer.kind, issuer_id: issuer.id, source_key: sourceKey }).first();
    return row ? normalise(row as InvoiceRow) : null;
  }

  async byId(tenantId: string, invoiceId: string): Promise<InvoiceRow | null> {
    const row = await this.knex<InvoiceRow>(INVOICES_TABLE).where({ tenant_id: tenantId, invoice_id: invoiceId }).first();
    return row ? normalise(row as InvoiceRow) : null;
  }
}
