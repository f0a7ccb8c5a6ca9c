import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { V1ListQuery, applyCursor, cursorPage, defineRoute, fromPrefixedId, livemodeOf, prefixedIdParam, unknownCursor, v1List, type Config, type RequestContext, type RouteDef } from '@cagnotte/infra';
import {
  PaymentRequestSchema,
  PublicPaymentRequestSchema,
  paymentRequestView,
  publicPaymentRequestView,
  type InvoiceReadModel,
  type RequestReadModel,
  type RequestRow,
  type RequestScope,
} from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';
import type { InvoiceRenderers } from '../invoicing/routes';

export const REQUEST_PROJECTIONS = ['requests'];

export interface RequestQueryDeps extends ConsistencyDeps {
  requests: RequestReadModel;
  invoices: InvoiceReadModel;
  renderers: InvoiceRenderers;
  config: Pick<Config, 'APP_ENV'>;
}

const IdParams = z.object({ id: prefixedIdParam('req') });
const ListQuery = V1ListQuery.safeExtend({ status: z.enum(['open', 'paid', 'expired', 'void']).optional().describe('Only the requests in this status') });

const requestUuid = (id: string): string => {
  const uuid = fromPrefixedId('req', id);
  if (!uuid) throw new NotFoundError('request');
  return uuid;
};

export const makeRequestQueryRoutes = (deps: RequestQueryDeps): RouteDef[] => {
  const production = deps.config.APP_ENV === 'production';
  /** A caller reads their own requests (they are the payee), of their mode (live / test), in their tenant. */
  const scopeOf = (ctx: RequestContext<unknown, unknown, unknown>): RequestScope => ({ tenantId: ctx.tenant!.id, livemode: livemodeOf(ctx, production), payeeId: ctx.auth!.userId });
  const load = async (ctx: RequestContext<unknown, unknown, { id: string }>) => {
    const uuid = requestUuid(ctx.params.id);
    await waitForMinPosition(deps, ctx, REQUEST_PROJECTIONS);
    const doc = await deps.requests.byId(scopeOf(ctx), uuid);
    if (!doc) throw new NotFoundError('request');
    return doc;
  };
  const cursor = async (ctx: RequestContext<unknown, unknown, unknown>, id: string | undefined, param: 'startingAfter' | 'endingBefore'): Promise<bigint | undefined> => {
    if (id === undefined) return undefined;
    const uuid = fromPrefixedId('req', id);
    const doc = uuid ? await deps.requests.byId(scopeOf(ctx), uuid) : null;
    if (!doc) throw unknownCursor(param);
    return doc.seq;
  };

  const get = defineRoute({
    method: 'get',
    path: '/v1/requests/{id}',
    operationId: 'retrievePaymentRequest',
    summary: 'Retrieve a payment request',
    description: 'The payee’s own request (another tenant’s, another mode’s or another payee’s is a 404). Send `X-Min-Position` to wait for the `requests` projection.',
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'read' },
    auth: 'required',
    tenant: 'required',
    params: IdParams,
    success: { status: 200, description: 'The request', schema: PaymentRequestSchema },
    errors: [401, 403, 404],
    handler: async (ctx) => ({ data: paymentRequestView(await load(ctx)) }),
  });

  const list = defineRoute({
    method: 'get',
    path: '/v1/requests',
    operationId: 'listPaymentRequests',
    summary: 'List payment requests',
    description: 'The payee’s requests of the key’s mode, newest first; `status` filters.',
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'read' },
    auth: 'required',
    tenant: 'required',
    query: ListQuery,
    success: { status: 200, description: 'A page of requests', schema: v1List(PaymentRequestSchema).describe('PaymentRequestList') },
    errors: [400, 401, 403],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, REQUEST_PROJECTIONS);
      const { limit, status } = ctx.query;
      const after = await cursor(ctx, ctx.query.startingAfter, 'startingAfter');
      const before = await cursor(ctx, ctx.query.endingBefore, 'endingBefore');
      const rows = (await applyCursor(deps.requests.listQuery(scopeOf(ctx), status), { seqColumn: 'seq', limit, after, before })) as RequestRow[];
      const page = cursorPage(deps.requests.docsOf(rows), limit, before);
      return { data: { object: 'list' as const, items: page.items.map(paymentRequestView), hasMore: page.hasMore, url: '/v1/requests' } };
    },
  });

  const publicRead = defineRoute({
    method: 'get',
    path: '/v1/requests/{id}/public',
    operationId: 'retrievePublicPaymentRequest',
    summary: 'The public page of a payment request',
    description:
      'No authentication: what a payer holding the link (`url`, `/pay/req_…`) needs to pay: the payee’s name, the lines and amounts, the status, what remains, and the payment instructions (destination, asset, MEMO_HASH). Never the customer, the metadata or the payments’ senders. The tenant comes from `X-Service-Tenant`.',
    tags: ['Requests'],
    auth: 'none',
    tenant: 'required',
    params: IdParams,
    success: { status: 200, description: 'The public view', schema: PublicPaymentRequestSchema },
    errors: [404],
    handler: async (ctx) => {
      const uuid = requestUuid(ctx.params.id);
      await waitForMinPosition(deps, ctx, REQUEST_PROJECTIONS);
      const doc = await deps.requests.publicById(ctx.tenant!.id, uuid);
      if (!doc) throw new NotFoundError('request');
      return { data: publicPaymentRequestView(doc) };
    },
  });

  const invoice = defineRoute({
    method: 'get',
    path: '/v1/requests/{id}/invoice',
    operationId: 'retrievePaymentRequestInvoice',
    summary: 'The invoice of a paid payment request',
    description:
      'The payee’s invoice to the customer (series R), issued when the request was paid: `format=pdf` (default) the Factur-X PDF (EN 16931 profile) with the CII XML embedded, `format=xml` the CII XML. 404 `invoice_not_found` while it is not issued yet (it follows the payment within seconds) or for a request that is not paid.',
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'read' },
    auth: 'required',
    tenant: 'required',
    params: IdParams,
    query: z.object({ format: z.enum(['pdf', 'xml']).default('pdf') }).strict(),
    success: { status: 200, description: 'The Factur-X PDF or the CII XML', schema: null, contentType: 'application/pdf' },
    responseHeaders: { 'Content-Disposition': '`attachment; filename="<number>.pdf"` (or `inline; … .xml`)' },
    errors: [401, 403, 404],
    handler: async (ctx) => {
      const doc = await load(ctx);
      const row = await deps.invoices.bySource(doc.tenantId, { kind: 'account', id: doc.payeeId }, `request:${doc.requestId}`);
      if (!row) throw new NotFoundError('invoice');
      if (ctx.query.format === 'xml') {
        return { data: null, raw: { contentType: 'application/xml; charset=utf-8', body: await deps.renderers.xml(row.document) }, headers: { 'Content-Disposition': `inline; filename="${row.number}.xml"` } };
      }
      const pdf = await deps.renderers.pdf(row.document);
      return { data: null, raw: { contentType: 'application/pdf', body: Buffer.from(pdf) }, headers: { 'Content-Disposition': `attachment; filename="${row.number}.pdf"` } };
    },
  });

  return [list, get, publicRead, invoice];
};
