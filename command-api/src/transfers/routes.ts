import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Memo } from '@stellar/stellar-sdk';
import { NotFoundError, ValidationError, decideTransfer, transferAggregate, type LedgerOutcome, type Transfer, type TransferCommand } from '@cagnotte/domain';
import {
  LedgerAmount,
  LedgerRejectedError,
  LedgerUnavailableError,
  defineRoute,
  fromPrefixedId,
  isStellarAccountId,
  ledgerCall,
  paymentResultCodesOf,
  prefixedIdParam,
  registerV1ErrorCodes,
  type LedgerGateway,
  type RequestContext,
  type RouteDef,
} from '@cagnotte/infra';
import { V1Transfer, toV1Transfer } from '@cagnotte/read-models';
import type { EventData } from '@cagnotte/event-schemas';
import { loadAccount, type AccountCommandDeps } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';
import { loadState } from '../shared/run-command';
import { decodeSignedXdr } from '../ledger/client-signed';
import { accountInScope, partnerActor, type PartnerScope } from '../accounts/scope';

// /v1/transfers: payments of the stablecoin between accounts' wallets, built here, signed by the sender, verified on
// the ledger. Non-custodial: the money goes from one wallet to the other; the service only builds and watches.

export interface TransferRouteDeps extends AccountCommandDeps {
  ledger: LedgerGateway;
  /** Production: a session's mode is live, and so is a signup's account. */
  production: boolean;
}

registerV1ErrorCodes({
  transfer_not_found: 'No such transfer for this key: missing, another tenant’s or of the other mode',
  account_wallet_missing: 'The account has no wallet linked: link one first (POST /v1/accounts/{id}/wallet)',
  ledger_account_not_found: 'The sender’s wallet does not exist on the ledger yet: fund it first',
  transfer_to_self: 'A transfer cannot pay its sender’s own wallet',
  transfer_transaction_mismatch: 'The signed transaction (or hash) is not the one the transfer built',
  transfer_canceled: 'The transfer was cancelled',
  transfer_not_cancelable: 'Only a transfer that requires a signature can be cancelled',
  invalid_xdr: 'signedXdr is not a transaction envelope for this network',
});

export const transferStream = (transferId: string) => `transfer-${transferId}`;

const CreateTransferBody = z
  .object({
    from: z.string().max(100).describe('`acct_…`: the sender; its linked wallet signs'),
    to: z.string().max(100).describe('`acct_…` of the tenant (its linked wallet), or a Stellar address (G…)'),
    amount: LedgerAmount,
    currency: z.literal('EUR').default('EUR'),
    memo: z
      .string()
      .max(28)
      .refine((m) => Buffer.byteLength(m, 'utf8') <= 28, 'at most 28 bytes (a Stellar text memo)')
      .optional(),
  })
  .strict()
  .describe('V1TransferCreate');

const SubmitTransferBody = z
  .object({
    signedXdr: z.string().min(1).max(20_000).optional().describe('The transaction of `unsignedXdr`, signed by the sender: the service submits it'),
    txHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe('Or its hash, once you submitted it yourself: the service finds it on the ledger'),
  })
  .strict()
  .refine((b) => (b.signedXdr === undefined) !== (b.txHash === undefined), { message: 'give either signedXdr or txHash', path: ['signedXdr'] });

const IdParams = z.object({ id: prefixedIdParam('tr') });

/** The transfer of the caller's tenant and mode, or a 404 (another tenant's, the other mode's and a missing one alike). */
const transferInScope = (t: Transfer, scope: PartnerScope): Exclude<Transfer, { status: 'none' }> => {
  if (t.status === 'none' || t.tenantId !== scope.tenantId || t.livemode !== scope.livemode) throw new NotFoundError('transfer');
  return t;
};

const answerOf = (t: Transfer, scope: PartnerScope) => ({ data: toV1Transfer(transferInScope(t, scope)) });

/** What the ledger did with the transaction named `hash`: applied, applied as failed, or not seen (null). */
const onLedger = async (ledger: LedgerGateway, hash: string): Promise<LedgerOutcome> => {
  const found = await ledgerCall(() => ledger.readTransaction(hash));
  if (!found) return null;
  const at = Number(found.record.ledger_attr);
  return found.record.successful ? { kind: 'settled', ledger: at } : { kind: 'failed', ledger: at, resultCodes: paymentResultCodesOf(found.record.result_xdr) };
};

export const makeTransferRoutes = (deps: TransferRouteDeps): RouteDef[] => {
  const { clock, ledger, production } = deps;
  const scopeOf = (ctx: RequestContext<unknown, unknown, unknown>) => partnerActor(ctx, { store: deps.store, production });
  /** The params' id, valid by its schema. */
  const transferIdOf = (id: string): string => fromPrefixedId('tr', id)!;
  /** An account of the scope with its wallet, for `field` (from / to). */
  const walletOf = async (id: string, field: 'from' | 'to', scope: PartnerScope): Promise<{ userId: string; wallet: string }> => {
    const userId = fromPrefixedId('acct', id);
    if (!userId) throw new ValidationError({ [field]: ['must be an account id (acct_…)' + (field === 'to' ? ' or a Stellar address (G…)' : '')] });
    let account;
    try {
      account = accountInScope(await loadAccount(deps.store, userId), scope);
    } catch (e) {
      if (e instanceof NotFoundError) throw new ValidationError({ [field]: ['no such account'] }, 'Account not found', 'account_not_found');
      throw e;
    }
    if (!account.ledgerAccount) throw new ValidationError({ [field]: ['has no wallet linked: link one first (POST /v1/accounts/{id}/wallet)'] }, 'The account has no wallet', 'account_wallet_missing');
    return { userId, wallet: account.ledgerAccount };
  };

  const create = defineRoute({
    method: 'post',
    path: '/v1/transfers',
    summary: 'Build a transfer from an account’s wallet',
    description:
      'Builds the payment of `amount` of the stablecoin from the sender’s linked wallet to `to` (an account’s wallet, or any Stellar address), for the wallet’s next sequence, valid 15 minutes: `status: requires_signature` with `unsignedXdr`. The sender signs it with their own key (the service never holds it, nor the money) and you submit it (`POST /v1/transfers/{id}/submit`).',
    tags: ['v1 Transfers'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    body: CreateTransferBody,
    success: { status: 200, description: 'The transfer, to sign', schema: V1Transfer },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const b = ctx.body;
      const from = await walletOf(b.from, 'from', scope);
      let to: EventData<'TransferCreated'>['to'];
      if (b.to.startsWith('acct_')) to = { kind: 'account', ...(await walletOf(b.to, 'to', scope)) };
      else if (isStellarAccountId(b.to)) to = { kind: 'address', wallet: b.to };
      else throw new ValidationError({ to: ['must be an account id (acct_…) or a Stellar address (G…)'] });
      if (to.wallet === from.wallet) throw new ValidationError({ to: ['is the sender’s own wallet'] }, 'A transfer cannot pay its own sender', 'transfer_to_self');
      let built;
      try {
        built = await ledgerCall(() => ledger.buildPayment({ source: from.wallet, destination: to.wallet, amount: b.amount, memo: b.memo ? Memo.text(b.memo) : Memo.none() }));
      } catch (e) {
        if (e instanceof ValidationError && e.code === 'ledger_account_not_found') throw new ValidationError({ from: [`the wallet ${from.wallet} does not exist on the ledger yet: fund it first`] }, e.message, e.code);
        throw e;
      }
      const transferId = randomUUID();
      const now = clock().toISOString();
      const command: TransferCommand = {
        type: 'CreateTransfer',
        data: {
          transferId,
          tenantId: scope.tenantId,
          livemode: scope.livemode,
          fromUserId: from.userId,
          fromWallet: from.wallet,
          to,
          amount: b.amount,
          currency: 'EUR',
          memo: b.memo ?? null,
          unsignedXdr: built.xdr,
          txHash: built.hash,
          expiresAt: built.expiresAt,
          createdVia: scope.keyId,
        },
        metadata: { now },
      };
      const { answer } = await executeCommand(deps, {
        stream: transferStream(transferId),
        aggregate: transferAggregate,
        decide: (state) => decideTransfer(command, state),
        respond: (o) => answerOf(o.state, scope),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return answer;
    },
  });

  const submit = defineRoute({
    method: 'post',
    path: '/v1/transfers/{id}/submit',
    summary: 'Submit a signed transfer (or give its hash)',
    description:
      'The signed transaction must be exactly the one built (its hash is `txHash`: same source and sequence, operation, amount, destination, memo and time bounds), else a 400 `transfer_transaction_mismatch` and nothing is submitted. `signedXdr`: the service submits it. `txHash`: you submitted it; the service finds it on the ledger. The ledger’s answer makes the transfer `settled` (`txHash`, `settledAt`) or `failed` (`failureCode`: `op_underfunded`, `op_no_trust`, `tx_bad_seq`, `tx_too_late`…); while the ledger has not answered it is `submitted` (call again).',
    tags: ['v1 Transfers'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    params: IdParams,
    body: SubmitTransferBody,
    example: { txHash: '9c1e4b7d4e0f8a6b5c4d3e2f1a0b3f2a9c1e4b7d4e0f8a6b5c4d3e2f1a0b3f2a' },
    success: { status: 200, description: 'The transfer', schema: V1Transfer },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const transferId = transferIdOf(ctx.params.id);
      const now = clock().toISOString();
      const t = transferInScope(await loadState(deps.store, transferStream(transferId), transferAggregate), scope);
      const via = ctx.body.signedXdr !== undefined ? ('signedXdr' as const) : ('txHash' as const);
      let hash: string;
      let outcome: LedgerOutcome = null;
      if (ctx.body.signedXdr !== undefined) {
        const decoded = decodeSignedXdr(ledger, ctx.body.signedXdr);
        hash = decoded.hash;
        // Never submit a transaction other than the one built, nor one the ledger already answered.
        decideTransfer({ type: 'SubmitTransfer', data: { txHash: hash, via, outcome: null }, metadata: { now } }, t);
        if (t.status === 'requires_signature' || t.status === 'submitted') outcome = await submitted(ledger, decoded.tx, hash);
      } else {
        hash = ctx.body.txHash!;
        decideTransfer({ type: 'SubmitTransfer', data: { txHash: hash, via, outcome: null }, metadata: { now } }, t);
        if (t.status === 'requires_signature' || t.status === 'submitted') {
          outcome = await onLedger(ledger, hash);
          // Past its upper time bound (and a margin for the ledger's clock), a transaction not on the ledger never will be.
          if (!outcome && Date.parse(t.expiresAt) + 60_000 < clock().getTime()) outcome = { kind: 'failed', ledger: null, resultCodes: ['tx_too_late'] };
        }
      }
      const { answer } = await executeCommand(deps, {
        stream: transferStream(transferId),
        aggregate: transferAggregate,
        decide: (state) => decideTransfer({ type: 'SubmitTransfer', data: { txHash: hash, via, outcome }, metadata: { now } }, transferInScope(state, scope)),
        respond: (o) => answerOf(o.state, scope),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return answer;
    },
  });

  const cancel = defineRoute({
    method: 'post',
    path: '/v1/transfers/{id}/cancel',
    summary: 'Cancel a transfer not yet submitted',
    description: 'Only while `requires_signature` (400 `transfer_not_cancelable` after). The built transaction stays valid on the ledger until `expiresAt`: a signed copy submitted elsewhere could still land, which the service would not follow.',
    tags: ['v1 Transfers'],
    auth: 'required',
    tenant: 'required',
    idempotent: true,
    params: IdParams,
    success: { status: 200, description: 'The transfer', schema: V1Transfer },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const scope = await scopeOf(ctx);
      const transferId = transferIdOf(ctx.params.id);
      const now = clock().toISOString();
      const { answer } = await executeCommand(deps, {
        stream: transferStream(transferId),
        aggregate: transferAggregate,
        decide: (state) => decideTransfer({ type: 'CancelTransfer', metadata: { now } }, transferInScope(state, scope)),
        respond: (o) => answerOf(o.state, scope),
        ...fromRequest(ctx, scope.tenantId, now),
      });
      return answer;
    },
  });

  return [create, submit, cancel];
};

/** Submits the signed transaction: the ledger applied it, refused it (with its codes), or did not answer (null: call again). */
const submitted = async (ledger: LedgerGateway, tx: Parameters<LedgerGateway['submit']>[0], hash: string): Promise<LedgerOutcome> => {
  try {
    const { ledger: at } = await ledger.submit(tx);
    return { kind: 'settled', ledger: at };
  } catch (e) {
    if (e instanceof LedgerUnavailableError) return null;
    if (!(e instanceof LedgerRejectedError)) throw e;
    // Already on the ledger (submitted elsewhere too): what it did there is the answer.
    const found = await onLedger(ledger, hash);
    if (found) return found;
    return { kind: 'failed', ledger: null, resultCodes: [e.resultCodes.transaction, ...(e.resultCodes.operations ?? [])].filter((c): c is string => !!c) };
  }
};
