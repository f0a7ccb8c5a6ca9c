import type { Knex } from 'knex';
import type { PaymentRequestCustomer, PaymentRequestLine } from '@cagnotte/event-schemas';
import { isUuid } from '../shared';
import type { RequestDoc } from './fold';

export const REQUESTS_TABLE = 'rm_payment_requests';

/** A row of rm_payment_requests (migration 030): the columns lists filter and order on, and the document. */
export interface RequestRow {
  request_id: string;
  tenant_id: string;
  livemode: boolean;
  payee_id: string;
  status: string;
  due_at: string | Date;
  created_at: string | Date;
  revision: string;
  doc: Omit<RequestDoc, 'revision'>;
  /** `bigint generated always as identity`: the list order and cursor (read back as a decimal string). */
  seq?: string;
}

export const requestRowOf = (d: RequestDoc): Omit<RequestRow, 'seq'> => {
  const { revision, ...doc } = d;
  return {
    request_id: d.requestId,
    tenant_id: d.tenantId,
    livemode: d.livemode,
    payee_id: d.payeeId,
    status: d.status,
    due_at: d.dueAt,
    created_at: d.createdAt,
    revision: revision.toString(),
    doc,
  };
};

export const requestDocOf = (r: RequestRow): RequestDoc => ({ ...(r.doc as RequestDoc), lines: r.doc.lines as PaymentRequestLine[], customer: r.doc.customer as PaymentRequestCustomer | null, revision: BigInt(r.revision) });

/** Who reads: the tenant's requests of one mode (livemode), the payee's own unless `payeeId` is null (the whole tenant). */
export interface RequestScope {
  tenantId: string;
  livemode: boolean;
  payeeId: string | null;
}

export class RequestReadModel {
  constructor(private readonly knex: Knex) {}

  private scoped(s: RequestScope) {
    const q = this.knex<RequestRow>(REQUESTS_TABLE).where({ tenant_id: s.tenantId, livemode: s.livemode });
    if (s.payeeId) q.where({ payee_id: s.payeeId });
    return q;
  }

  /** One request in scope, with its seq; null when missing or out of scope (the caller answers 404 either way). */
  async byId(s: RequestScope, requestId: string): Promise<(RequestDoc & { seq: bigint }) | null> {
    if (!isUuid(requestId)) return null;
    const row = (await this.scoped(s).where({ request_id: requestId }).first()) as RequestRow | undefined;
    return row ? { ...requestDocOf(row), seq: BigInt(row.seq!) } : null;
  }

  /** The public page's read: by id and tenant only (a payer holds the link, not a key). */
  async publicById(tenantId: string, requestId: string): Promise<RequestDoc | null> {
    if (!isUuid(requestId)) return null;
    const row = (await this.knex<RequestRow>(REQUESTS_TABLE).where({ tenant_id: tenantId, request_id: requestId }).first()) as RequestRow | undefined;
    return row ? requestDocOf(row) : null;
  }

  /** The rows of a list in scope (with `status`), unordered: the /v1 list applies its cursor and order (applyCursor). */
  listQuery(s: RequestScope, status?: string): Knex.QueryBuilder {
    const q = this.scoped(s);
    if (status) q.where({ status });
    return q;
  }

  /** The documents of rows read through `listQuery`. */
  docsOf(rows: RequestRow[]): Array<RequestDoc & { seq: bigint }> {
    return rows.map((r) => ({ ...requestDocOf(r), seq: BigInt(r.seq!) }));
  }
}
