/**
 * `createClient`: the /v1 API as resource namespaces (`client.webhooks.create(…)`, `for await (… of
 * client.events.list(…))`). Each method is one line naming its operation in the generated document; a resource the
 * document does not have yet gets its methods the same way once `pnpm sdk:generate` has brought its paths in.
 */
import createFetchClient from 'openapi-fetch';
import type { paths } from './generated/schema';
import { operations } from './operations';
import { makeTransport, type TransportOptions } from './transport';
import { createWallet, type CreateWalletOptions } from './stellar';
import { verifyWebhook } from './webhooks';

export interface ClientOptions extends TransportOptions {
  /** The API's root, e.g. https://api.example.com (no /v1). */
  baseUrl: string;
}

export const createClient = (options: ClientOptions) => {
  const transport = makeTransport(options);
  const http = createFetchClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: transport });
  const op = operations(http);

  return {
    webhooks: {
      create: op.post('/v1/webhooks'),
      list: op.list('/v1/webhooks'),
      retrieve: op.get('/v1/webhooks/{id}'),
      update: op.patch('/v1/webhooks/{id}'),
      del: op.delete('/v1/webhooks/{id}'),
      rotateSecret: op.post('/v1/webhooks/{id}/rotate-secret'),
      test: op.post('/v1/webhooks/{id}/test'),
      recover: op.post('/v1/webhooks/{id}/recover'),
      attempts: op.list('/v1/webhooks/{id}/attempts'),
      signingKey: op.get('/v1/webhooks/signing-key'),
      /** Checks a delivery's signature and timestamp: see verifyWebhook. */
      verify: verifyWebhook,
    },
    accounts: {
      create: op.post('/v1/accounts'),
      list: op.list('/v1/accounts'),
      retrieve: op.get('/v1/accounts/{id}'),
      update: op.post('/v1/accounts/{id}'),
      /** A challenge for the account holder's Stellar key to sign (stellar.signXdr), then linkWallet. */
      walletChallenge: op.post('/v1/accounts/{id}/wallet/challenge'),
      linkWallet: op.post('/v1/accounts/{id}/wallet'),
    },
    transfers: {
      /** Builds the transfer from an account's wallet: sign its XDR in that wallet, then submit. */
      create: op.post('/v1/transfers'),
      list: op.list('/v1/transfers'),
      retrieve: op.get('/v1/transfers/{id}'),
      submit: op.post('/v1/transfers/{id}/submit'),
      cancel: op.post('/v1/transfers/{id}/cancel'),
    },
    groupBuys: {
      create: op.post('/v1/group-buys'),
      list: op.list('/v1/group-buys'),
      retrieve: op.get('/v1/group-buys/{id}'),
      publish: op.post('/v1/group-buys/{id}/publish'),
      close: op.post('/v1/group-buys/{id}/close'),
      cancel: op.post('/v1/group-buys/{id}/cancel'),
      /** The transactions the organiser cosigns, then settlementSubmit. */
      settlement: op.post('/v1/group-buys/{id}/settlement'),
      settlementSubmit: op.post('/v1/group-buys/{id}/settlement/submit'),
      orders: {
        create: op.post('/v1/group-buys/{id}/orders'),
        list: op.list('/v1/group-buys/{id}/orders'),
        /** The deposit for the buyer to sign: (groupBuyId, orderId, body). */
        payment: op.post('/v1/group-buys/{id}/orders/{orderId}/payment'),
        submit: op.post('/v1/group-buys/{id}/orders/{orderId}/submit'),
      },
    },
    deals: {
      create: op.post('/v1/deals'),
      list: op.list('/v1/deals'),
      retrieve: op.get('/v1/deals/{id}'),
      /** The deposit the buyer signs (stellar.signXdr), then fundSubmit. */
      fund: op.post('/v1/deals/{id}/fund'),
      fundSubmit: op.post('/v1/deals/{id}/fund/submit'),
      deliver: op.post('/v1/deals/{id}/deliver'),
      accept: op.post('/v1/deals/{id}/accept'),
      dispute: op.post('/v1/deals/{id}/dispute'),
      cancel: op.post('/v1/deals/{id}/cancel'),
      /** The release (the split) for the seller to cosign, then releaseSubmit. */
      release: op.post('/v1/deals/{id}/release'),
      releaseSubmit: op.post('/v1/deals/{id}/release/submit'),
      refund: op.post('/v1/deals/{id}/refund'),
      refundSubmit: op.post('/v1/deals/{id}/refund/submit'),
      history: op.get('/v1/deals/{id}/history'),
      reconciliation: op.get('/v1/deals/{id}/reconciliation'),
    },
    requests: {
      create: op.post('/v1/requests'),
      list: op.list('/v1/requests'),
      retrieve: op.get('/v1/requests/{id}'),
      /** What a payer sees, without credentials. */
      retrievePublic: op.get('/v1/requests/{id}/public'),
      /** The unsigned payment of one payer, to sign (stellar.signXdr) and record. */
      buildPayment: op.post('/v1/requests/{id}/payment'),
      recordPayment: op.post('/v1/requests/{id}/payments'),
      void: op.post('/v1/requests/{id}/void'),
      /** The paid request's invoice, a PDF. */
      invoice: op.download('/v1/requests/{id}/invoice'),
    },
    apiKeys: {
      create: op.post('/v1/api-keys'),
      list: op.list('/v1/api-keys'),
      retrieve: op.get('/v1/api-keys/{id}'),
      /** Revokes the key at once; answers it, revoked. */
      del: op.delete('/v1/api-keys/{id}'),
      roll: op.post('/v1/api-keys/{id}/roll'),
    },
    events: {
      list: op.list('/v1/events'),
      types: op.get('/v1/events/types'),
    },
    /** The network passphrase, Horizon and the stablecoin (public). */
    ledger: {
      retrieve: op.get('/v1/ledger'),
    },
    sandbox: {
      /** sandbox.createWallet with this client's root, credential and tenant. */
      createWallet: (o: Omit<CreateWalletOptions, 'baseUrl'> = {}) =>
        createWallet({ baseUrl: options.baseUrl, apiKey: options.apiKey, sessionToken: options.sessionToken, tenant: options.tenant, ...o }),
    },
    /** The typed operations, for a path no namespace has a method for yet: `client.raw.get('/v1/…')(…)`. */
    raw: op,
  };
};

export type CagnotteClient = ReturnType<typeof createClient>;
