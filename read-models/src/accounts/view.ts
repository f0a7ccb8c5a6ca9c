import { z } from 'zod';
import type { Knex } from 'knex';
import { fromMinor, toMinor } from '../reservations/amounts';
import { acctId } from './ids';
import type { V1AccountDoc } from './fold';
import { inEscrowOf, type InEscrowSource, IN_ESCROW_SOURCES } from './in-escrow';
import { V1Requirements, requirementsOf } from './requirements';
import { pendingFromWallet } from '../transfers/reader';

const Amount = z.string().describe('Decimal string (at most 7 decimals), never a float');

export const V1Balance = z
  .object({
    currency: z.literal('EUR'),
    available: Amount.describe('What the linked wallet holds of the stablecoin on the ledger now ("0.00" without a wallet or trustline)'),
    pending: Amount.describe('Transfers from this account built or submitted and not yet settled or failed'),
    inEscrow: Amount.describe('Paid into escrows (pools’ deposits) and neither released nor refunded yet'),
  })
  .describe('V1Balance');

export const V1Account = z
  .object({
    id: z.string().describe('`acct_…`: the account (a user of the tenant)'),
    object: z.literal('account'),
    livemode: z.boolean(),
    created: z.string().describe('ISO 8601 date-time'),
    email: z.string(),
    name: z.string().nullable(),
    type: z.enum(['individual', 'business']),
    country: z.string(),
    business: z
      .object({ companyName: z.string(), siret: z.string().nullable(), taxCountry: z.string(), taxId: z.string().nullable(), rccm: z.string().nullable() })
      .nullable()
      .describe('The DAC7 identity of a business account'),
    wallet: z.object({ publicKey: z.string() }).nullable().describe('The Stellar account the holder proved they control (non-custodial)'),
    balances: z.array(V1Balance),
    requirements: V1Requirements,
    metadata: z.record(z.string(), z.string()),
  })
  .describe('V1Account');
export type V1Account = z.infer<typeof V1Account>;

/** What the ledger says of a wallet: whether it trusts the stablecoin, and its balance of it. */
export interface WalletOnLedger {
  exists: boolean;
  trusts: boolean;
  /** Decimal string. */
  balance: string;
}
/** The ledger, as the accounts' balances read it (an adapter over the ledger gateway, in the apps). */
export interface WalletBalances {
  of(wallet: string): Promise<WalletOnLedger>;
}

/** The account's facts a view renders: its read model document, or the command's own state in the same shape. */
export type V1AccountFacts = Omit<V1AccountDoc, 'revision' | 'tenantId' | 'createdVia'>;

export interface V1AccountViewDeps {
  knex: Knex;
  wallets: WalletBalances;
  /** The mode of an account registered through /api (a signup): the environment's. */
  defaultLivemode: boolean;
  inEscrowSources?: readonly InEscrowSource[];
  now: () => Date;
}

/** What an account's balances and requirements are made of: the ledger's word on its wallet and the read models' sums (stroops). */
export interface V1AccountFigures {
  onLedger: WalletOnLedger | null;
  pending: bigint;
  inEscrow: bigint;
}

export const figuresOf = async (deps: V1AccountViewDeps, a: Pick<V1AccountFacts, 'userId' | 'wallet'>): Promise<V1AccountFigures> => {
  const [onLedger, pending, inEscrow] = await Promise.all([
    a.wallet ? deps.wallets.of(a.wallet) : Promise.resolve<WalletOnLedger | null>(null),
    pendingFromWallet(deps.knex, a.userId, deps.now()),
    inEscrowOf(deps.knex, a.userId, deps.inEscrowSources ?? IN_ESCROW_SOURCES),
  ]);
  return { onLedger, pending, inEscrow };
};

/** The account as /v1 shows it, from its facts and figures (pure: a command renders its answer with it). */
export const renderV1Account = (a: V1AccountFacts, f: V1AccountFigures, defaultLivemode: boolean): V1Account => ({
  id: acctId(a.userId),
  object: 'account',
  livemode: a.livemode ?? defaultLivemode,
  created: a.createdAt,
  email: a.email,
  name: a.name === '' ? null : a.name,
  type: a.accountType === 'BUSINESS' ? 'business' : 'individual',
  country: a.country,
  business: a.business,
  wallet: a.wallet ? { publicKey: a.wallet } : null,
  balances: [{ currency: 'EUR', available: fromMinor(f.onLedger ? toMinor(f.onLedger.balance) : 0n), pending: fromMinor(f.pending), inEscrow: fromMinor(f.inEscrow) }],
  requirements: requirementsOf(a, f.onLedger ? f.onLedger.exists && f.onLedger.trusts : null),
  metadata: a.metadata,
});

/** The account as /v1 shows it: its facts, its balances (the ledger's and the read models') and its requirements. */
export const toV1Account = async (deps: V1AccountViewDeps, a: V1AccountFacts): Promise<V1Account> => renderV1Account(a, await figuresOf(deps, a), deps.defaultLivemode);
