import { createHash, createPrivateKey, sign as ed25519Sign, type KeyObject } from 'node:crypto';
import { Account, Asset, Keypair, Operation, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { formatAmount, type LedgerPayment } from '@cagnotte/domain';
import { EscrowLedger, LedgerGateway, MemoryLedger, escrowSetupTransaction, settlementEffectsOf, type EscrowState } from '@cagnotte/infra';
import type { LedgerFacts } from '@cagnotte/read-models';

// The ledger side of the money property (money.property.int.spec.ts): the keys every run reuses, an in-memory
// network (the sandbox's engine) with the platform, the organiser, a seller and the buyers funded, the escrow opened
// by the very setup transaction EscrowLedger submits, and what the service reads back from a ledger (the escrow's
// state, the facts reconciliation compares), read here from the memory ledger instead of Horizon.

export const PASSPHRASE = 'Cagnotte money property ; 2026';
const keyOf = (role: string) => Keypair.fromRawEd25519Seed(createHash('sha256').update(`money-property|${role}`).digest());

/** Fixed keys: generating and signing with fresh ones would dominate the run time. */
export const KEYS = {
  platform: keyOf('platform'),
  issuer: keyOf('issuer'),
  organiser: keyOf('organiser'),
  seller: keyOf('seller'),
  /** The escrow's key: only ever used by the setup (docs/escrow.md derives it from the platform's secret). */
  escrow: keyOf('escrow'),
  buyers: [keyOf('buyer-0'), keyOf('buyer-1'), keyOf('buyer-2')],
  /** Someone who is no buyer and pays the escrow straight (a stray payment). */
  stranger: keyOf('stranger'),
};
export const ESCROW = KEYS.escrow.publicKey();
export const PLATFORM = KEYS.platform.publicKey();
export const EURC = new Asset('EURC', KEYS.issuer.publicKey());
export const ASSET = { code: 'EURC', issuer: KEYS.issuer.publicKey() };
export const BUYER_FUNDS = 1_000n * 10_000_000n;

/** The service's own objects over settings only: planOf/rebuiltPlan read the passphrase, asset and platform; platformSign signs. */
export const gateway = new LedgerGateway({
  horizonUrl: () => 'http://127.0.0.1:1/unused',
  networkPassphrase: PASSPHRASE,
  assetCode: ASSET.code,
  assetIssuer: ASSET.issuer,
  platformAccount: PLATFORM,
  platformKeypair: KEYS.platform,
  signingKeypair: KEYS.platform,
  homeDomain: 'cagnotte.local',
  allowHttp: true,
});
export const escrowLedger = new EscrowLedger(gateway);

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const privateKeys = new Map<string, KeyObject>();
const privateKeyOf = (kp: Keypair): KeyObject => {
  let key = privateKeys.get(kp.publicKey());
  if (!key) privateKeys.set(kp.publicKey(), (key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, kp.rawSecretKey()]), format: 'der', type: 'pkcs8' })));
  return key;
};

/**
 * `tx.sign(kp)`, with node's ed25519: the same signature (ed25519 is deterministic; checked once below) in a
 * fraction of the SDK's pure-JS time. In place, like tx.sign.
 */
export const signWith = (tx: Transaction, ...kps: Keypair[]): Transaction => {
  for (const kp of kps) {
    const signature = ed25519Sign(null, tx.hash(), privateKeyOf(kp));
    tx.signatures.push(new xdr.DecoratedSignature({ hint: kp.signatureHint(), signature }));
  }
  return tx;
};

/** A signed copy, as a client does with what the service hands out. */
export const signedCopy = (tx: Transaction, ...kps: Keypair[]): Transaction => signWith(TransactionBuilder.fromXDR(tx.toXDR(), PASSPHRASE) as Transaction, ...kps);

export const sameSignatureAsTheSdk = (): boolean => {
  const tx = new TransactionBuilder(new Account(PLATFORM, '1'), { fee: '100', networkPassphrase: PASSPHRASE, timebounds: { minTime: 0, maxTime: 0 } })
    .addOperation(Operation.bumpSequence({ bumpTo: '0' }))
    .build();
  const ours = signedCopy(tx, KEYS.organiser).signatures[0]!.toXDR('base64');
  tx.sign(KEYS.organiser);
  return ours === tx.signatures[0]!.toXDR('base64');
};

/** The recipients of a settlement and the buyers, funded; the platform, the organiser and the seller hold no stablecoin yet. */
export const newNetwork = (closeTime: bigint): MemoryLedger => {
  const ledger = new MemoryLedger(PASSPHRASE, closeTime);
  const xlm = (units: bigint) => units * 10_000_000n;
  ledger.createAccount(KEYS.issuer.publicKey(), xlm(100n));
  for (const kp of [KEYS.platform, KEYS.organiser, KEYS.seller]) {
    ledger.createAccount(kp.publicKey(), xlm(kp === KEYS.platform ? 10_000n : 100n));
    ledger.fundAsset(kp.publicKey(), ASSET, 0n);
  }
  for (const kp of [...KEYS.buyers, KEYS.stranger]) {
    ledger.createAccount(kp.publicKey(), xlm(100n));
    ledger.fundAsset(kp.publicKey(), ASSET, BUYER_FUNDS);
  }
  return ledger;
};

/** EscrowLedger.openEscrow's transaction (the one builder), signed by the platform and the escrow's key, on the memory ledger. */
export const openEscrowOn = (ledger: MemoryLedger): string => {
  const platform = ledger.account(PLATFORM)!;
  const tx = escrowSetupTransaction({
    platform: new Account(PLATFORM, platform.seqNum.toString()),
    escrowAccount: ESCROW,
    organiserAccount: KEYS.organiser.publicKey(),
    asset: EURC,
    networkPassphrase: PASSPHRASE,
    maxTime: Number(ledger.closeTime) + 300,
  });
  const result = ledger.submit(signWith(tx, KEYS.platform, KEYS.escrow));
  if (!result.applied || !result.successful) throw new Error(`the escrow setup did not apply: ${JSON.stringify(result.codes)}`);
  return result.hash;
};

/** EscrowLedger.escrowState, from the memory ledger instead of Horizon (Horizon lists the master key among the signers). */
export const escrowStateOf = (ledger: MemoryLedger, accountId: string): EscrowState => {
  const account = ledger.account(accountId);
  if (!account) return { exists: false, sequence: 0n, strayBalance: 0n, hasTrustline: false, signers: [], thresholds: { low: 0, med: 0, high: 0 } };
  const line = account.trustlines.find((t) => t.code === ASSET.code && t.issuer === ASSET.issuer);
  return {
    exists: true,
    sequence: account.seqNum,
    strayBalance: line?.balance ?? 0n,
    hasTrustline: line !== undefined,
    signers: [...account.signers.map((s) => ({ key: s.key, type: s.type, weight: s.weight })), { key: account.id, type: 'ed25519_public_key', weight: account.masterWeight }],
    thresholds: { low: account.lowThreshold, med: account.medThreshold, high: account.highThreshold },
  };
};

/** The claimable balances of the stablecoin the escrow may claim (EscrowLedger.holdings), amounts as Horizon prints them. */
export const escrowDeposits = (ledger: MemoryLedger): Array<{ balanceId: string; amount: string }> =>
  ledger
    .claimableBalances({ claimant: ESCROW })
    .filter((b) => b.asset.code === ASSET.code && b.asset.issuer === ASSET.issuer)
    .map((b) => ({ balanceId: b.balanceId, amount: formatAmount(b.amount, 7) }));

const effects = new Map<string, LedgerFacts['transactions'][string]>();
const paymentsByTx = new Map<string, LedgerPayment[]>();

/** Horizon's operation id (a TOID): the ledger, the transaction's order in it (one per ledger here), the operation's. */
const operationId = (ledger: number, index: number) => ((BigInt(ledger) << 32n) | (1n << 12n) | BigInt(index + 1)).toString();

/**
 * EscrowLedger.escrowPayments, from the memory ledger: every successful payment of the stablecoin into or out of the
 * escrow, oldest first, decoded from the envelopes (Horizon lists the same operations).
 */
export const escrowPaymentsOf = (ledger: MemoryLedger): LedgerPayment[] => {
  const out: LedgerPayment[] = [];
  for (const t of ledger.transactions()) {
    if (!t.successful) continue;
    // The same transaction (fixed keys, the same sequence) recurs across runs at another ledger: keyed by where it closed.
    const key = `${t.hash}|${t.ledger}|${t.closeTime}`;
    let list = paymentsByTx.get(key);
    if (!list) {
      const tx = TransactionBuilder.fromXDR(t.envelopeXdr, PASSPHRASE) as Transaction;
      const at = new Date(Number(t.closeTime) * 1000).toISOString();
      list = tx.operations.flatMap((op, i) =>
        op.type === 'payment' && !op.asset.isNative() && op.asset.getCode() === ASSET.code && op.asset.getIssuer() === ASSET.issuer
          ? [{ operationId: operationId(t.ledger, i), txHash: t.hash, from: op.source ?? tx.source, to: op.destination, amount: op.amount, at }]
          : [],
      );
      paymentsByTx.set(key, list);
    }
    out.push(...list.filter((p) => p.to === ESCROW || p.from === ESCROW));
  }
  return out;
};

/** What reconcilePool's ledgerFactsFor reads, from the memory ledger: the same decoding of each round's transaction. */
export const ledgerFactsOf = (ledger: MemoryLedger, txHashes: string[]): LedgerFacts => {
  const state = escrowStateOf(ledger, ESCROW);
  const transactions: LedgerFacts['transactions'] = {};
  for (const hash of txHashes) {
    const found = ledger.transaction(hash);
    if (!found) {
      transactions[hash] = null;
      continue;
    }
    const key = `${found.envelopeXdr}|${found.successful}`;
    let e = effects.get(key);
    if (!e) effects.set(key, (e = settlementEffectsOf(TransactionBuilder.fromXDR(found.envelopeXdr, PASSPHRASE) as Transaction, found.successful, ASSET)));
    transactions[hash] = e;
  }
  const paidOut = escrowPaymentsOf(ledger)
    .filter((p) => p.from === ESCROW)
    .map((p) => ({ destination: p.to, amount: p.amount, txHash: p.txHash }));
  return { accountExists: state.exists, balance: formatAmount(state.strayBalance), deposits: escrowDeposits(ledger), transactions, platform: PLATFORM, paidOut };
};
