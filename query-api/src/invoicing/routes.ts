import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { InvoiceDocumentSchema, InvoiceKind, InvoiceSubject, type EventData } from '@cagnotte/event-schemas';
import { PageQuery, defineRoute, paginated, pagination, type RequestContext, type RouteDef } from '@cagnotte/infra';
import type { InvoiceFilter, InvoiceReadModel, InvoiceRow } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

export const INVOICE_PROJECTIONS = ['invoices'];

type InvoiceDocument = EventData<'InvoiceIssued'>['document'];

/** The documents an invoice downloads as: injected, so the renderers stay in infra and a spec can replace them. */
export interface InvoiceRenderers {
  xml: (doc: InvoiceDocument) => string | Promise<string>;
  pdf: (doc: InvoiceDocument) => Promise<Uint8Array>;
}

export interface InvoiceQueryDeps extends ConsistencyDeps {
  invoices: InvoiceReadModel;
  isAuditor: (tenantId: string, userId: string) => Promise<boolean>;
  renderers: InvoiceRenderers;
}

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');
const Filters = {
  kind: InvoiceKind.optional().describe('GOODS, PLATFORM_FEE, COMMISSION, CREDIT_NOTE, DEPOSIT_FEE, LISTING_FEE, ACTIVATION_FEE or REQUEST'),
  type: z.enum(['380', '381']).optional().describe('380 invoice, 381 credit note'),
  poolId: z.string().uuid().optional(),
  from: Day.optional().describe('issued on or after (YYYY-MM-DD)'),
  to: Day.optional().describe('issued on or before (YYYY-MM-DD)'),
};
export const InvoiceListQuery = PageQuery.extend({
  direction: z.enum(['received', 'issued', 'all']).default('all').describe('received: you are the recipient (a buyer’s goods invoices and credit notes, a seller’s fee and commission invoices); issued: you are the issuer'),
  ...Filters,
});
export const AuditInvoiceQuery = PageQuery.extend(Filters);

export const InvoiceSummarySchema = z
  .object({
    id: z.string().uuid(),
    number: z.string(),
    kind: InvoiceKind,
    typeCode: z.enum(['380', '381']),
    issueDate: Day,
    issuer: InvoiceSubject,
    recipient: InvoiceSubject,
    poolId: z.string().uuid().nullable().describe('the pool invoiced for; null for the organiser activation fee'),
    reservationId: z.string().uuid().nullable(),
    corrects: z.string().uuid().nullable().describe('the invoice a credit note corrects'),
    sequence: z.number().int(),
    grandTotal: z.string(),
    duePayable: z.string(),
    currency: z.literal('EUR'),
    sellerName: z.string(),
    buyerName: z.string(),
  })
  .describe('InvoiceSummary');
export const InvoiceDetailSchema = InvoiceSummarySchema.extend({ document: InvoiceDocumentSchema }).describe('Invoice');

const summary = (r: InvoiceRow): z.infer<typeof InvoiceSummarySchema> => ({
  id: r.invoice_id,
  number: r.number,
  kind: r.kind as z.infer<typeof InvoiceKind>,
  typeCode: r.type_code as '380' | '381',
  issueDate: r.issue_date,
  issuer: { kind: r.issuer_kind as InvoiceSubject['kind'], id: r.issuer_id },
  recipient: { kind: r.recipient_kind as InvoiceSubject['kind'], id: r.recipient_id },
  poolId: r.pool_id,
  reservationId: r.reservation_id,
  corrects: r.corrects,
  sequence: r.sequence,
  grandTotal: r.document.totals.grandTotal,
  duePayable: r.document.totals.duePayable,
  currency: 'EUR',
  sellerName: r.document.seller.name,
  buyerName: r.document.buyer.name,
});

type Ctx = RequestContext<unknown, unknown, unknown>;
const IdParams = z.object({ id: z.string().uuid() });

export const makeInvoiceQueryRoutes = (deps: InvoiceQueryDeps): RouteDef[] => {
  const { invoices } = deps;
  const tenantOf = (ctx: Ctx) => {
    if (!ctx.tenant || ctx.tenant.id !== ctx.auth!.tenantId) throw new NotFoundError('invoice');
    return ctx.tenant.id;
  };
  /** Its issuer, its recipient, or an auditor of its tenant; anyone else gets the 404 of a missing invoice. */
  const readable = async (ctx: Ctx, id: string): Promise<InvoiceRow> => {
    await waitForMinPosition(deps, ctx, INVOICE_PROJECTIONS);
    const tenantId = tenantOf(ctx);
    const row = await invoices.byId(tenantId, id);
    const userId = ctx.auth!.userId;
    const party = row && ((row.issuer_kind === 'account' && row.issuer_id === userId) || (row.recipient_kind === 'account' && row.recipient_id === userId));
    if (!row || !(party || (await deps.isAuditor(tenantId, userId)))) throw new NotFoundError('invoice');
    return row;
  };
  const list = async (tenantId: string, filter: InvoiceFilter, q: z.infer<typeof PageQuery>) => {
    const { rows, total } = await invoices.list(tenantId, filter, q.page, q.limit);
    return { data: { items: rows.map(summary), pagination: pagination(q.page, q.limit, total) } };
  };
  const filterOf = (q: z.infer<typeof AuditInvoiceQuery>): InvoiceFilter => ({ kind: q.kind, type: q.type, poolId: q.poolId, from: q.from, to: q.to });
  const access = 'Its issuer (the seller, or the organiser of a commission), its recipient and the auditors of the tenant may read it; anyone else gets a 404.';

  return [
    defineRoute({
      method: 'get',
      path: '/api/invoices',
      summary: 'My invoices and credit notes',
      description: `Bearer. The invoices the caller received (a buyer's goods invoices, credit notes and escrow-deposit fee invoices; a seller's platform fee and commission invoices; an organiser's listing fee invoices and their credit notes, and activation fee invoice) and issued (a seller's goods invoices and credit notes, an organiser's commission invoices), newest first. Issued automatically when a reservation's deposit is released, a listing fee is paid or paid back, and an organiser grant is settled (docs/invoicing.md). Send \`X-Min-Position\` to wait for the invoices projection.`,
      tags: ['Invoicing'],
      auth: 'required',
      tenant: 'optional',
      query: InvoiceListQuery,
      success: { status: 200, description: 'A page of invoices', schema: paginated(InvoiceSummarySchema) },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        await waitForMinPosition(deps, ctx, INVOICE_PROJECTIONS);
        const q = ctx.query as z.infer<typeof InvoiceListQuery>;
        return list(tenantOf(ctx), { ...filterOf(q), party: { userId: ctx.auth!.userId, direction: q.direction } }, q);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/invoices/{id}',
      summary: 'One invoice or credit note',
      description: `Bearer. Its metadata and the document as issued (the EN 16931 semantic model the XML and PDF render). ${access}`,
      tags: ['Invoicing'],
      auth: 'required',
      tenant: 'optional',
      params: IdParams,
      success: { status: 200, description: 'The invoice', schema: InvoiceDetailSchema },
      errors: [401, 404],
      handler: async (ctx) => {
        const row = await readable(ctx, (ctx.params as { id: string }).id);
        return { data: { ...summary(row), document: row.document } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/invoices/{id}/xml',
      summary: 'An invoice as CII XML',
      description: `Bearer. The UN/CEFACT CII D16B XML in the EN 16931 profile (the \`factur-x.xml\` the PDF embeds). ${access}`,
      tags: ['Invoicing'],
      auth: 'required',
      tenant: 'optional',
      params: IdParams,
      success: { status: 200, description: 'The CII XML', schema: null, contentType: 'application/xml' },
      errors: [401, 404],
      handler: async (ctx) => {
        const row = await readable(ctx, (ctx.params as { id: string }).id);
        return { data: null, raw: { contentType: 'application/xml; charset=utf-8', body: await deps.renderers.xml(row.document) }, headers: { 'Content-Disposition': `inline; filename="${row.number}.xml"` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/invoices/{id}/pdf',
      summary: 'An invoice as Factur-X PDF',
      description: `Bearer. A PDF/A-3 with the CII XML embedded as \`factur-x.xml\` (Factur-X 1.0, EN 16931 profile), served as an attachment named by its number. ${access}`,
      tags: ['Invoicing'],
      auth: 'required',
      tenant: 'optional',
      params: IdParams,
      success: { status: 200, description: 'The Factur-X PDF', schema: null, contentType: 'application/pdf' },
      responseHeaders: { 'Content-Disposition': '`attachment; filename="<number>.pdf"`' },
      errors: [401, 404],
      handler: async (ctx) => {
        const row = await readable(ctx, (ctx.params as { id: string }).id);
        const pdf = await deps.renderers.pdf(row.document);
        return { data: null, raw: { contentType: 'application/pdf', body: Buffer.from(pdf) }, headers: { 'Content-Disposition': `attachment; filename="${row.number}.pdf"` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/audit/invoices',
      summary: "All of a tenant's invoices (auditors)",
      description: "Bearer, an auditor of the tenant (granted by an operator: `pnpm cli auditor grant`); anyone else gets a 404. Every invoice and credit note of the tenant, whoever issued it, with the filters of GET /api/invoices; each downloads through GET /api/invoices/{id}/xml and /pdf.",
      tags: ['Audit'],
      auth: 'required',
      tenant: 'optional',
      query: AuditInvoiceQuery,
      success: { status: 200, description: 'A page of invoices', schema: paginated(InvoiceSummarySchema) },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        await waitForMinPosition(deps, ctx, INVOICE_PROJECTIONS);
        const tenantId = tenantOf(ctx);
        if (!(await deps.isAuditor(tenantId, ctx.auth!.userId))) throw new NotFoundError('resource');
        const q = ctx.query as z.infer<typeof AuditInvoiceQuery>;
        return list(tenantId, filterOf(q), q);
      },
    }),
  ];
};
