import { z } from 'zod';
import { UserSummarySchema, toUserSummary, type AccountRow } from './accounts';
import type { TenantView } from './tenants';

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
      committed: z.string().describe('Amount of live PENDING reservations, not yet paid (decimal string)'),
      escrowed: z.string().describe('Amount in escrow: the verified deposits of PAID reservations no settlement claimed yet (decimal string)'),
      released: z.string().describe('Amount the settlements of PAID reservations paid out to sellers, organisers and the platform (decimal string)'),
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

/** The ledger the wallet is on, as the ledger gateway describes it. */
export interface WalletLedger {
  assetCode: string;
  assetIssuer: string;
  network: string;
  networkPassphrase: string;
}

export interface MeAgent {
  sessionId: string;
  deviceId: string;
}

/** GET /api/auth/me: the account and tenant rows, the ledger the wallet is on, and the session asking. */
export const authMeView = (
  account: AccountRow,
  tenant: TenantView,
  ledger: WalletLedger,
  agent: MeAgent,
  spending: z.infer<typeof AuthMeResponse>['spending'],
): z.infer<typeof AuthMeResponse> => {
  const capabilities = [...(account.role === 'organiser' ? ['organise'] : []), ...(account.account_type === 'BUSINESS' ? ['commission'] : [])];
  return {
    user: {
      ...toUserSummary(account),
      registeredAt: new Date(account.registered_at).toISOString(),
      signupSource: account.signup_source,
    },
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, whiteLabel: tenant.whiteLabel },
    region: { country: account.country, currency: account.currency, timezone: account.timezone },
    wallet: {
      ledgerAccount: account.ledger_account,
      asset: ledger.assetCode,
      assetIssuer: ledger.assetIssuer,
      network: ledger.network,
      networkPassphrase: ledger.networkPassphrase,
    },
    business: account.company_name
      ? { companyName: account.company_name, siret: account.siret, taxCountry: account.tax_country ?? 'FR', taxId: account.tax_id, rccm: account.rccm }
      : null,
    // From the reservations read model (spendingOf): reservations are in the euro stablecoin, whatever the account's region.
    spending,
    verification: { email: false, phone: false, business: account.account_type === 'BUSINESS' && account.company_name !== null, ledgerAccount: account.ledger_account !== null },
    agent: { sessionId: agent.sessionId, deviceId: agent.deviceId, capabilities },
  };
};
