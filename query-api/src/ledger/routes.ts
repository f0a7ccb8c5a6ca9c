import { defineRoute, type LedgerGateway, type RouteDef } from '@cagnotte/infra';
import { z } from 'zod';

export interface LedgerQueryDeps {
  ledger: Pick<LedgerGateway, 'settings' | 'network'>;
}

export const LedgerInfo = z
  .object({
    object: z.literal('ledger'),
    network: z.string().describe('`sandbox`, `testnet` or `public`'),
    networkPassphrase: z.string().describe('What every transaction is signed for'),
    horizonUrl: z.string().describe('The Horizon API the service talks to (in the sandbox: its own, at /sandbox/horizon)'),
    asset: z.object({ code: z.string(), issuer: z.string() }).describe('The euro stablecoin: a wallet holds it through a trustline to this asset'),
    platformAccount: z.string().describe('The platform’s account, which receives its fees'),
  })
  .meta({ id: 'LedgerInfo' });

/**
 * `GET /v1/ledger`: what a client needs to build, sign and check transactions: the network, Horizon and the stablecoin.
 * Public: nothing in it is a secret, and a wallet is set up before any credential exists.
 */
export const makeLedgerQueryRoutes = (deps: LedgerQueryDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/v1/ledger',
    operationId: 'getLedger',
    summary: 'The ledger: network, Horizon and the stablecoin',
    description: 'The network passphrase to sign for, the Horizon URL, the stablecoin (code and issuer) a wallet must trust, and the platform’s account.',
    tags: ['Ledger'],
    auth: 'none',
    v1: { resource: 'accounts', access: 'read' },
    success: { status: 200, description: 'The ledger the service runs on', schema: LedgerInfo },
    errors: [],
    handler: async () => ({
      data: {
        object: 'ledger' as const,
        network: deps.ledger.network,
        networkPassphrase: deps.ledger.settings.networkPassphrase,
        horizonUrl: deps.ledger.settings.horizonUrl(),
        asset: { code: deps.ledger.settings.assetCode, issuer: deps.ledger.settings.assetIssuer },
        platformAccount: deps.ledger.settings.platformAccount,
      },
    }),
  }),
];
