/**
 * The sandbox's wallet verbs (`pnpm cli sandbox wallet create|link|sign|show`), mounted by cli.ts: what a partner's
 * front end does with a user's own Stellar wallet, for a newcomer walking the sandbox from a shell. The keys are made
 * and kept on the operator's side (printed once, passed back with `--secret` or WALLET_SECRET); the service never
 * holds them, as in production, where a wallet app holds them. Sandbox network only: on testnet or the public
 * network these verbs refuse (exit 2).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { BASE_FEE, FeeBumpTransaction, Horizon, Keypair, NotFoundError, Operation, StrKey, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { issueWalletChallenge, linkWallet } from '@cagnotte/command-api';
import { FRIENDBOT_MAX_STABLECOIN, formatStellarAmount, parseStellarAmount, type Position, type Services } from '@cagnotte/infra';
import { TenantReadModel } from '@cagnotte/read-models';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface SandboxWalletCliDeps {
  usage: (message: string) => Error;
  print: (value: unknown) => void;
  /** Serves the sandbox Horizon on a loopback port for the command's time (sets `s.self.url`); answers its stopper. */
  serveSandbox: (s: Services) => Promise<() => Promise<void>>;
  /** Brings the read models up to the head (the link's answer is read back from the account). */
  catchUp: (s: Services, until: Position | null) => Promise<void>;
}

const DEFAULT_FUND = '1000';

/** The wallet's secret: `--secret` or WALLET_SECRET (the latter keeps it out of the process list and shell history). */
const secretOf = (deps: SandboxWalletCliDeps, given: string | undefined): Keypair => {
  const secret = given ?? process.env.WALLET_SECRET;
  if (!secret) throw deps.usage('needs the wallet’s secret: --secret <S…> or WALLET_SECRET');
  if (!StrKey.isValidEd25519SecretSeed(secret)) throw deps.usage('the secret is not a Stellar secret seed (S…, 56 characters)');
  return Keypair.fromSecret(secret);
};

const ensureSandbox = (deps: SandboxWalletCliDeps, s: Services, verb: string): void => {
  if (!s.sandboxLedger || s.config.APP_ENV === 'production') {
    throw deps.usage(`sandbox wallet ${verb} works on the embedded sandbox network only (LEDGER_MODE=sandbox, APP_ENV=sandbox): on testnet, make keys with the Stellar Laboratory`);
  }
};

/** The stablecoin amount for `--fund`: a positive decimal (0 for none) the friendbot may pay. */
const fundOf = (deps: SandboxWalletCliDeps, text: string): bigint => {
  let stroops: bigint;
  try {
    stroops = parseStellarAmount(text);
  } catch {
    throw deps.usage(`--fund takes an amount like 250 or 99.50, not ${text}`);
  }
  if (stroops > FRIENDBOT_MAX_STABLECOIN) throw deps.usage(`--fund is at most ${formatStellarAmount(FRIENDBOT_MAX_STABLECOIN)}`);
  return stroops;
};

/** The account's balances as Horizon shows them: `{ XLM: "9999.9999900", EURC: "250.0000000" }`. */
const balancesOf = async (horizon: Horizon.Server, account: string): Promise<Record<string, string>> => {
  const loaded = await horizon.loadAccount(account);
  return Object.fromEntries(loaded.balances.map((b) => [b.asset_type === 'native' ? 'XLM' : 'asset_code' in b ? b.asset_code : b.asset_type, b.balance]));
};

const friendbot = async (baseUrl: string, account: string, amount?: bigint) => {
  const query = new URLSearchParams({ addr: account, ...(amount !== undefined ? { amount: formatStellarAmount(amount) } : {}) });
  const res = await fetch(`${baseUrl}/sandbox/horizon/friendbot?${query}`);
  if (!res.ok) throw new Error(`friendbot refused ${account}: ${res.status} ${await res.text()}`);
};

export const sandboxWalletCommands = (deps: SandboxWalletCliDeps): Record<string, Command> => {
  /** The sandbox Horizon of this command (over HTTP, with the SDK, as a wallet app would call it). */
  const withHorizon = async <T>(s: Services, fn: (horizon: Horizon.Server, baseUrl: string) => Promise<T>): Promise<T> => {
    const stop = await deps.serveSandbox(s);
    try {
      return await fn(new Horizon.Server(`${s.self.url}/sandbox/horizon`, { allowHttp: true }), s.self.url!);
    } finally {
      await stop();
    }
  };

  return {
    /** Keys, friendbot (10,000 XLM), a trustline to the stablecoin, then `--fund` of it (1,000 unless told). */
    'sandbox wallet': async (s, args) => {
      const verb = args[0];
      const rest = args.slice(1);
      if (verb === 'create') return create(s, rest);
      if (verb === 'link') return link(s, rest);
      if (verb === 'sign') return sign(s, rest);
      if (verb === 'show') return show(s, rest);
      throw deps.usage(`sandbox wallet takes create, link, sign or show${verb ? `, not ${verb}` : ''}`);
    },
  };

  async function create(s: Services, args: string[]) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { fund: { type: 'string' } } });
    if (positionals.length) throw deps.usage(`sandbox wallet create takes no argument (got ${positionals.join(' ')})`);
    ensureSandbox(deps, s, 'create');
    const fund = fundOf(deps, values.fund ?? DEFAULT_FUND);
    const keypair = Keypair.random();
    const account = keypair.publicKey();
    const asset = s.ledger.asset;
    const balances = await withHorizon(s, async (horizon, baseUrl) => {
      await friendbot(baseUrl, account);
      // Bound by the sandbox clock, not this machine's: once the clock was advanced, the network runs ahead.
      const maxTime = Math.floor(s.clock().getTime() / 1000) + 300;
      const trust = new TransactionBuilder(await horizon.loadAccount(account), { fee: BASE_FEE, networkPassphrase: s.config.STELLAR_NETWORK_PASSPHRASE, timebounds: { minTime: 0, maxTime } })
        .addOperation(Operation.changeTrust({ asset }))
        .build();
      trust.sign(keypair);
      await horizon.submitTransaction(trust);
      if (fund > 0n) await friendbot(baseUrl, account, fund);
      return balancesOf(horizon, account);
    });
    deps.print({
      publicKey: account,
      secret: keypair.secret(),
      network: s.config.STELLAR_NETWORK_PASSPHRASE,
      asset: { code: asset.getCode(), issuer: asset.getIssuer() },
      balances,
      note: 'sandbox keys, printed once: the service never holds them. Link the wallet with `pnpm cli sandbox wallet link`, sign with `pnpm cli sandbox wallet sign`.',
    });
  }

  /** The partner's link, done here: the service's challenge for the user, signed with the wallet's key, then linked. */
  async function link(s: Services, args: string[]) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { tenant: { type: 'string' }, email: { type: 'string' }, secret: { type: 'string' } } });
    if (positionals.length) throw deps.usage(`sandbox wallet link takes no argument (got ${positionals.join(' ')})`);
    if (!values.tenant || !values.email) throw deps.usage('sandbox wallet link needs --tenant and --email');
    ensureSandbox(deps, s, 'link');
    const keypair = secretOf(deps, values.secret);
    const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
    if (!tenant) throw deps.usage(`no tenant ${values.tenant}`);
    const cred = await s.credentials.byEmail(tenant.id, values.email);
    if (!cred) throw deps.usage(`no user ${values.email} in ${tenant.slug}`);
    const challenge = await issueWalletChallenge(s, cred.user_id, keypair.publicKey());
    const tx = new Transaction(challenge.transaction, challenge.networkPassphrase);
    tx.sign(keypair);
    const now = s.clock().toISOString();
    // The service checks the signers against the ledger (over Horizon, as the API does).
    const { ledgerAccount, position } = await withHorizon(s, () =>
      linkWallet(
        { ...s, readYourWritesMs: s.config.READ_YOUR_WRITES_TIMEOUT_MS },
        { userId: cred.user_id, signedChallenge: tx.toXDR(), now },
        { metadata: { tenantId: tenant.id, actor: { kind: 'operator', id: process.env.USER ?? 'cli' }, correlationId: randomUUID(), causationId: null, occurredAt: now } },
      ),
    );
    await deps.catchUp(s, position ?? null);
    deps.print({ userId: cred.user_id, email: cred.email, tenant: tenant.slug, ledgerAccount });
  }

  /**
   * Signs transactions the service handed out (a deposit, a settlement's lock and release, a reclaim) with the
   * wallet's key. Prints each signed envelope with its hash; with --submit, sends each to the sandbox Horizon in order
   * and prints its ledger too (a buyer's deposit is submitted by the buyer; a settlement's are sent back to the API).
   */
  async function sign(s: Services, args: string[]) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { secret: { type: 'string' }, submit: { type: 'boolean' } } });
    if (!positionals.length) throw deps.usage('sandbox wallet sign needs one or more transaction envelopes (base64 XDR)');
    ensureSandbox(deps, s, 'sign');
    const keypair = secretOf(deps, values.secret);
    const passphrase = s.config.STELLAR_NETWORK_PASSPHRASE;
    const signed = positionals.map((xdr, i) => {
      let tx: Transaction | FeeBumpTransaction;
      try {
        tx = TransactionBuilder.fromXDR(xdr, passphrase);
      } catch {
        throw deps.usage(`envelope ${i + 1} is not a transaction envelope of this network (base64 XDR)`);
      }
      tx.sign(keypair);
      return tx;
    });
    const hashOf = (tx: Transaction | FeeBumpTransaction) => Buffer.from(tx.hash()).toString('hex');
    if (!values.submit) {
      deps.print({ signer: keypair.publicKey(), transactions: signed.map((tx) => ({ hash: hashOf(tx), xdr: tx.toXDR() })) });
      return;
    }
    // In order; the first the ledger refuses stops the rest (exit 1, its result codes on stderr).
    const results = await withHorizon(s, async (horizon) => {
      const out: Array<{ hash: string; ledger?: number; refused?: unknown }> = [];
      for (const tx of signed) {
        try {
          const r = await horizon.submitTransaction(tx);
          out.push({ hash: r.hash, ledger: r.ledger });
        } catch (e) {
          const codes = (e as { response?: { data?: { extras?: { result_codes?: unknown } } } }).response?.data?.extras?.result_codes;
          if (!codes) throw e;
          out.push({ hash: hashOf(tx), refused: codes });
          break;
        }
      }
      return out;
    });
    const refused = results.find((r) => r.refused);
    if (refused) {
      console.error(JSON.stringify({ success: false, error: `the ledger refused ${refused.hash}`, code: 'ledger_rejected', resultCodes: refused.refused }));
      process.exitCode = 1;
    }
    deps.print({ signer: keypair.publicKey(), transactions: results });
  }

  async function show(s: Services, args: string[]) {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    const account = positionals[0];
    if (!account || !StrKey.isValidEd25519PublicKey(account)) throw deps.usage('sandbox wallet show needs a public key (G…)');
    ensureSandbox(deps, s, 'show');
    // Only a 404 means no such account: any other failure is the ledger's, and surfaces as one (exit 3).
    const balances = await withHorizon(s, (horizon) =>
      balancesOf(horizon, account).catch((e: unknown) => {
        if (e instanceof NotFoundError) return null;
        throw e;
      }),
    );
    if (!balances) throw deps.usage(`no account ${account} on the sandbox network`);
    deps.print({ publicKey: account, balances });
  }
};
