import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Memo } from '@stellar/stellar-sdk';
import { ForbiddenError, IllegalStateError, NotFoundError, ValidationError, decidePaymentRequest, balanceOf, requestPaymentMismatch, requestTotals, formatAmount, type ObservedPayment } from '@cagnotte/domain';
import { PaymentRequestCustomer, PaymentRequestLine } from '@cagnotte/event-schemas';
import { V1Currency, defineRoute, ledgerCall, livemodeOf, prefixedIdParam, registerV1ErrorCodes, requestMemoHash, type ApiKeyContext, type Config, type LedgerGateway, type RouteDef } from '@cagnotte/infra';
import { PaymentRequestSchema, paymentRequestView } from '@cagnotte/read-models';
import { executeCommand, fromRequest, type ExecuteRuntime } from '../shared/execute-command';
import { loadState } from '../shared/run-command';
import type { CommandFacts } from '../shared/facts';
import { accountParty } from '../invoicing/parties';
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';
import { requestAggregate, requestInScope, requestStream, type RequestCommandState } from './aggregate';
import { accountIdParam, requestIdParam } from './ids';

export interface RequestRouteDeps extends ExecuteRuntime {
  facts: CommandFacts;
  ledger: LedgerGateway;
  config: Pick<Config, 'APP_ENV'>;
  clock: () => Date;
}

const TxHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-character hex transaction hash')
  .transform((h) => h.toLowerCase());
/** A payer: a ledger account (`G…`), or an account of the tenant (`acct_…`) with a linked wallet. */
const Payer = z
  .string()
  .regex(/^(G[A-Z2-7]{55}|acct_[0-9a-f]{32})$/, 'must be a Stellar account id (G…) or an account id (acct_…)')
  .describe('The paying ledger account (`G…`), or an account of the tenant (`acct_…`) whose linked wallet pays');

const CreateBody = z
  .object({
    lineItems: z.array(PaymentRequestLine).min(1).max(100),
    currency: V1Currency,
    dueAt: z.string().datetime({ offset: true }),
    payee: z.string().max(64).optional().describe('`acct_…`: the API key’s owner (the default); no other account'),
    payer: Payer.optional().describe('When the payer is known: the answer carries `paymentXdr`, their unsigned payment'),
    customer: PaymentRequestCustomer.optional(),
    description: z.string().max(1000).optional(),
    metadata: z.record(z.string().max(40), z.string().max(500)).refine((m) => Object.keys(m).length <= 50, 'at most 50 keys').optional(),
  })
  .strict();

const IdParams = z.object({ id: prefixedIdParam('req') });

const PaymentXdr = z
  .object({
    xdr: z.string().describe('The unsigned transaction (base64 XDR): one payment of the stablecoin to the payee, with the request’s MEMO_HASH'),
    hash: z.string(),
    expiresAt: z.string(),
    networkPassphrase: z.string(),
    amount: z.string().describe('What it pays: what remains of the amount due'),
  })
  .describe('PaymentRequestPaymentXdr');

const CreatedRequest = PaymentRequestSchema.extend({
  paymentXdr: PaymentXdr.nullable().describe('The unsigned payment of `payer` when one was named; else null (POST …/payment builds it)'),
}).describe('PaymentRequestCreated');

const RecordResult = z
  .object({
    recorded: z.boolean(),
    idempotent: z.boolean().optional(),
    pending: z.boolean().optional(),
    reason: z.string().optional(),
    txHash: z.string(),
    request: PaymentRequestSchema.optional(),
  })
  .describe('PaymentRequestPaymentResult');

registerV1ErrorCodes({
  request_not_found: 'No such payment request for this key: missing, another tenant’s, another payee’s or of the other mode',
  request_not_open: 'The payment request is paid, expired or void: it takes no payment and cannot be voided',
  payee_not_allowed: 'A request pays the API key’s owner: `payee` may name no other account',
  payee_wallet_required: 'The payee has no linked ledger wallet to be paid on',
  invalid_line_items: 'A line item’s VAT category and rate do not fit (S above 0, any other at 0, O alone), or the request is for 0.00',
  invalid_vat_category: 'A VAT category the payee cannot invoice: O without a VAT id only, AE and K need customer.vatId',
  payment_mismatch: 'The transaction is not a payment of this request (memo, destination, asset, one payment, success)',
  invalid_xdr: 'signedXdr is not a transaction envelope for this network',
  ledger_account_not_found: 'The payer’s account does not exist on the ledger yet',
  invoice_not_found: 'No invoice yet: the request is not paid, or its invoice is being issued',
  payer_wallet_required: 'The payer account (`acct_…`) has no linked ledger wallet',
  account_not_found: 'No such account in this tenant',
});

export const makeRequestCommandRoutes = (deps: RequestRouteDeps): RouteDef[] => {
  const { ledger, clock, facts } = deps;

  /** The request of this caller (tenant, mode, payee), or a 404 for any other id. */
  const scopeOf = (ctx: { auth: { userId: string } | null; tenant: { id: string } | null; apiKey: ApiKeyContext | null }) => ({
    tenantId: ctx.tenant!.id,
    livemode: livemodeOf(ctx, deps.config.APP_ENV === 'production'),
    payeeId: ctx.auth!.userId,
  });
  const answer = (status: number) => (o: { state: RequestCommandState }) => ({ status, data: paymentRequestView(o.state.doc!) });

  /** The payer's ledger account: as given (`G…`), or the linked wallet of an account of the caller's tenant (`acct_…`). */
  const payerWallet = async (payer: string, tenantId: string): Promise<string> => {
    if (payer.startsWith('G')) return payer;
    const account = await facts.account(accountIdParam(payer)!);
    if (account.status === 'none' || account.tenantId !== tenantId) throw new NotFoundError('account');
    if (!account.ledgerAccount) throw new ValidationError({ payer: ['this account has no linked ledger wallet'] }, 'The payer has no linked ledger wallet', 'payer_wallet_required');
    return account.ledgerAccount;
  };
  const paymentOf = async (payer: string, tenantId: string, destination: string, amount: string, memoHash: string) => {
    const source = await payerWallet(payer, tenantId);
    const built = await ledgerCall(() => ledger.buildPayment({ source, destination, amount, memo: Memo.hash(memoHash) }));
    return { ...built, networkPassphrase: ledger.settings.networkPassphrase, amount };
  };

  const create = defineRoute({
    method: 'post',
    path: '/v1/requests',
    operationId: 'createPaymentRequest',
    summary: 'Create a payment request',
    description: [
      'A payment link or an itemised invoice, paid on the ledger to the payee’s own wallet. `lineItems` are VAT excluded (`unitAmount` up to 4 decimals) with their EN 16931 VAT category and rate; `amountDue` is their net sum plus the VAT per (category, rate), rounded half-up to the cent once per rate, exactly as the invoice issued when it is paid will show it.',
      'The payee is the API key’s owner (`payee` may only name them: `acct_…`) and must have a linked ledger wallet. Without a VAT id the payee invoices `O` (not subject to VAT) only; with one, any other category (`AE` and `K` need `customer.vatId`).',
      'The answer carries `payment` (destination, asset, MEMO_HASH, amount): any wallet may pay it. With `payer` (`G…`, or `acct_…` of the tenant with a linked wallet) it also carries `paymentXdr`, the payer’s unsigned transaction; otherwise `POST /v1/requests/{id}/payment` builds it later. The request expires at `dueAt`.',
    ].join('\n\n'),
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'write' },
    auth: 'required',
    tenant: 'required',
    body: CreateBody,
    example: {
      lineItems: [
        { description: 'Logo design (hours)', quantity: 2, unitAmount: '45.00', vatCategory: 'S', vatRate: '20' },
        { description: 'Printed brand book', quantity: 1, unitAmount: '12.50', vatCategory: 'S', vatRate: '5.5' },
      ],
      currency: 'EUR',
      dueAt: '2026-12-31T23:00:00Z',
      customer: { name: 'Boulangerie Martin SARL', email: 'compta@martin.example', country: 'FR' },
      description: 'Brand identity, March',
      metadata: { order: 'A-42' },
    },
    idempotent: true,
    success: { status: 201, description: 'The open request', schema: CreatedRequest },
    errors: [400, 401, 403, 404, 409],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const scope = scopeOf(ctx);
      if (ctx.body.payee !== undefined && accountIdParam(ctx.body.payee) !== auth.userId) {
        throw new ForbiddenError('payee_not_allowed', 'A request pays the API key’s owner: an invoice is issued in the payee’s name, which only they may do');
      }
      const { account } = await facts.persona(auth);
      const party = accountParty(account, account.country);
      const requestId = randomUUID();
      const memoHash = requestMemoHash(requestId);
      // The payer's payment is built before anything is recorded: an unfunded payer or a silent ledger leaves no request.
      const paymentXdr =
        ctx.body.payer && account.ledgerAccount
          ? await paymentOf(ctx.body.payer, scope.tenantId, account.ledgerAccount, requestTotals(ctx.body.lineItems).amountDue, memoHash)
          : null;
      const now = clock().toISOString();
      const { answer: data } = await executeCommand(deps, {
        stream: requestStream(requestId),
        aggregate: requestAggregate,
        decide: (s) =>
          decidePaymentRequest(
            {
              type: 'CreateRequest',
              data: {
                requestId,
                tenantId: scope.tenantId,
                livemode: scope.livemode,
                payeeId: auth.userId,
                payeeName: party.name.slice(0, 200),
                payeeWallet: account.ledgerAccount,
                payeeVatId: party.vatId ?? null,
                asset: { code: ledger.settings.assetCode, issuer: ledger.settings.assetIssuer },
                memoHash,
                lines: ctx.body.lineItems,
                dueAt: ctx.body.dueAt,
                customer: ctx.body.customer ?? null,
                description: ctx.body.description ?? null,
                metadata: ctx.body.metadata ?? {},
              },
              metadata: { now },
            },
            s.request,
          ),
        respond: (o) => ({ status: 201, data: { ...paymentRequestView(o.state.doc!), paymentXdr } }),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return data;
    },
  });

  const buildPayment = defineRoute({
    method: 'post',
    path: '/v1/requests/{id}/payment',
    operationId: 'buildPaymentRequestPayment',
    summary: 'Build the payment of a request for one payer',
    description:
      'The unsigned transaction a payer signs with their own wallet: one payment of what remains of the amount due, in the stablecoin, from `payer` (`G…`, or `acct_…` of the tenant: its linked wallet) to the payee, with the request’s MEMO_HASH. Then they submit it to the ledger and send its hash to `POST /v1/requests/{id}/payments`. Only an open request; the payer’s account must exist on the ledger.',
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'write' },
    auth: 'required',
    tenant: 'required',
    params: IdParams,
    body: z.object({ payer: Payer }).strict(),
    idempotent: true,
    success: { status: 200, description: 'The unsigned payment', schema: PaymentXdr },
    errors: [400, 401, 404, 409],
    handler: async (ctx) => {
      const id = requestIdParam(ctx.params.id);
      const state = await loadState(deps.store, requestStream(id), requestAggregate);
      const r = requestInScope(state.request, scopeOf(ctx));
      if (r.status === 'none') throw new NotFoundError('request');
      if (r.status !== 'open') throw new IllegalStateError('request_not_open', `Only an open request can be paid (this one is ${r.status})`);
      return { data: await paymentOf(ctx.body.payer, r.tenantId, r.payeeWallet, formatAmount(balanceOf(r).remaining), r.memoHash) };
    },
  });

  const recordPayment = defineRoute({
    method: 'post',
    path: '/v1/requests/{id}/payments',
    operationId: 'recordPaymentRequestPayment',
    summary: 'Record a payment of a request',
    description: [
      'Primary path: the payer submitted the payment; send `txHash`. Fallback: send `signedXdr` and the service submits it (only if it is a payment of this request).',
      'The service reads the transaction back from the ledger and checks that it succeeded and holds exactly one payment, to the payee’s wallet, in the stablecoin (code **and** issuer), with this request’s MEMO_HASH; any payer may pay. Each transaction is recorded once. When what was paid reaches the amount due the request is `paid` (`amountOverpaid` says what went beyond); below it, it stays `open` with `amountRemaining` and `underpaid: true`.',
      'A payment that arrives after the request expired or was voided is recorded as `late: true` and pays nothing (the payee returns it). `{pending: true}` while the ledger does not show the transaction yet (call again). A transaction that is not a payment of this request is a 400 `payment_mismatch`.',
    ].join('\n\n'),
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'write' },
    auth: 'required',
    tenant: 'required',
    params: IdParams,
    body: z
      .object({ txHash: TxHash.optional(), signedXdr: z.string().min(1).max(20_000).optional() })
      .strict()
      .refine((b) => b.txHash !== undefined || b.signedXdr !== undefined, { message: 'give txHash or signedXdr', path: ['txHash'] }),
    idempotent: true,
    success: { status: 200, description: 'Recorded, pending or idempotent', schema: RecordResult },
    errors: [400, 401, 404, 503],
    handler: async (ctx) => {
      const id = requestIdParam(ctx.params.id);
      const scope = scopeOf(ctx);
      const before = requestInScope((await loadState(deps.store, requestStream(id), requestAggregate)).request, scope);
      if (before.status === 'none') throw new NotFoundError('request');
      let txHash = ctx.body.txHash;
      if (ctx.body.signedXdr !== undefined) {
        const { tx, hash } = decodeSignedXdr(ledger, ctx.body.signedXdr, txHash);
        txHash = hash;
        // Nothing is submitted on the payer's behalf unless it is a payment of this request.
        const mismatch = requestPaymentMismatch(before, ledger.describePayment(tx, { txHash: hash, ledger: 0, successful: true }));
        if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not pay this request: ${mismatch.message}`, 'payment_mismatch');
        if ((await submitClientSigned(ledger, tx, hash)) === 'unavailable') return { data: { recorded: false, pending: true, reason: 'ledger_unavailable', txHash: hash } };
      }
      const observed: ObservedPayment | null = await ledgerCall(() => ledger.observePayment(txHash!));
      if (!observed) return { data: { recorded: false, pending: true, reason: 'not_on_ledger_yet', txHash: txHash! } };
      const now = clock().toISOString();
      const { answer: data } = await executeCommand(deps, {
        stream: requestStream(id),
        aggregate: requestAggregate,
        decide: (s) => decidePaymentRequest({ type: 'RecordPayment', data: { payment: observed }, metadata: { now } }, requestInScope(s.request, scope)),
        respond: (o) => ({ data: { recorded: true, ...(o.events.length === 0 ? { idempotent: true } : {}), txHash: observed.txHash, request: paymentRequestView(o.state.doc!) } }),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return data;
    },
  });

  const voidRequest = defineRoute({
    method: 'post',
    path: '/v1/requests/{id}/void',
    operationId: 'voidPaymentRequest',
    summary: 'Void an open payment request',
    description: 'Only an open request (400 `request_not_open` otherwise); voiding twice answers the voided request. A payment that arrives after is recorded as late and pays nothing.',
    tags: ['Requests'],
    v1: { resource: 'requests', access: 'write' },
    auth: 'required',
    tenant: 'required',
    params: IdParams,
    idempotent: true,
    success: { status: 200, description: 'The voided request', schema: PaymentRequestSchema },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const id = requestIdParam(ctx.params.id);
      const scope = scopeOf(ctx);
      const now = clock().toISOString();
      const { answer: data } = await executeCommand(deps, {
        stream: requestStream(id),
        aggregate: requestAggregate,
        decide: (s) => decidePaymentRequest({ type: 'VoidRequest', data: { requestId: id }, metadata: { now } }, requestInScope(s.request, scope)),
        respond: answer(200),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return data;
    },
  });

  return [create, buildPayment, recordPayment, voidRequest];
};
