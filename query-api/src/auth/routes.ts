import { z } from 'zod';
import { NotFoundError, UserSummarySchema, defineRoute, toUserSummary, type RouteDef, type Services } from '@cagnotte/infra';

export const AuthMeResponse = z
  .object({
    user: UserSummarySchema.extend({
      registeredAt: z.string(),
      signupSource: z.string(),
    }),
    tenant: z.object({ id: z.string().uuid(), slug: z.string(), name: z.string(), whiteLabel: z.boolean() }),
    region: z.object({ country: z.string(), currency: z.string(), timezone: z.string() }),
    wallet: z.object({
      ledgerAccount: z.string().nullable().describe('The linked Stellar account (G…), or null until one is linked (POST /api/me/ledger/challenge, then /link)'),
      asset: z.string().describe('The euro stablecoin code'),
      assetIssuer: z.string().describe('Its issuing account: a payment counts only in this exact asset'),
      network: z.string().describe('`sandbox`, `testnet` or `public`'),
      networkPassphrase: z.string(),
    }),
    business: z
      .object({ companyName: z.string(), siret: z.string().nullable(), taxCountry: z.string(), taxId: z.string().nullable(), rccm: z.string().nullable() })
      .nullable()
      .describe('The business identity kept for DAC7 (BUSINESS accounts), else null'),
    spending: z.object({
      currency: z.string(),
      committed: z.string().describe('Amount in open reservations (decimal string)'),
      escrowed: z.string().describe('Amount held in escrow (decimal string)'),
      released: z.string().describe('Amount released to sellers (decimal string)'),
    }),
    verification: z.object({
      email: z.boolean(),
      phone: z.boolean(),
      business: z.boolean().describe('Business identity captured (BUSINESS account, DAC7)'),
      ledgerAccount: z.boolean().describe('Control of a ledger account proven (SEP-10 style challenge)'),
    }),
    agent: z.object({
      sessionId: z.string().uuid(),
      deviceId: z.string().uuid(),
      capabilities: z.array(z.string()).describe('e.g. `organise` for organisers, `commission` for BUSINESS accounts'),
    }),
  })
  .describe('AuthMeResponse');

export const makeAuthQueryRoutes = ({ services }: { services: Services }): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/auth/me',
    summary: 'The signed-in user\'s context',
    description: 'Region, wallet, spending, verification and agent context. 404 when the account no longer exists.',
    tags: ['Auth'],
    auth: 'required',
    success: { status: 200, description: 'The current user', schema: AuthMeResponse },
    errors: [401, 404],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const [account, tenant] = await Promise.all([services.accounts.find(auth.userId), services.tenants.byId(auth.tenantId)]);
      if (!account || !tenant) throw new NotFoundError('account');
      const capabilities = [...(account.role === 'organiser' ? ['organise'] : []), ...(account.account_type === 'BUSINESS' ? ['commission'] : [])];
      return {
        data: {
          user: {
            ...toUserSummary(account),
            registeredAt: new Date(account.registered_at).toISOString(),
            signupSource: account.signup_source,
          },
          tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, whiteLabel: tenant.whiteLabel },
          region: { country: account.country, currency: account.currency, timezone: account.timezone },
          wallet: {
            ledgerAccount: account.ledger_account,
            asset: services.ledger.settings.assetCode,
            assetIssuer: services.ledger.settings.assetIssuer,
            network: services.ledger.network,
            networkPassphrase: services.ledger.settings.networkPassphrase,
          },
          business: account.company_name
            ? { companyName: account.company_name, siret: account.siret, taxCountry: account.tax_country ?? 'FR', taxId: account.tax_id, rccm: account.rccm }
            : null,
          spending: { currency: account.currency, committed: '0.00', escrowed: '0.00', released: '0.00' },
          verification: { email: false, phone: false, business: account.account_type === 'BUSINESS' && account.company_name !== null, ledgerAccount: account.ledger_account !== null },
          agent: { sessionId: auth.sessionId, deviceId: auth.deviceId, capabilities },
        },
      };
    },
  }),
];
