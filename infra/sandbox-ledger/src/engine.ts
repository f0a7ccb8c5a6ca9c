/**
 * The sandbox network's state machine: validates a transaction envelope against the accounts it touches and
 * applies it, with stellar-core's rules and result codes (TransactionFrame / OperationFrame / SignatureChecker).
 * Pure: no I/O, no clock (the close time comes in the context). Persistence lives in store.ts.
 */
import { createHash } from 'node:crypto';
import { Keypair, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { INT64_MAX } from './amounts';
import {
  OP,
  SUPPORTED_OPS,
  opInner,
  opOuter,
  opSuccess,
  type AssetWire,
  type ChangeTrustAssetWire,
  type ClaimPredicateWire,
  type EnvelopeWire,
  type MuxedAccountWire,
  type OpOutcome,
  type OperationWire,
  type SignatureWire,
  type SignerKeyWire,
  type SupportedOpType,
  type TxCode,
  type TxWire,
} from './codes';

export const BASE_FEE = 100n;
export const BASE_RESERVE = 5_000_000n;
export const MAX_SIGNERS = 20;

export const ACCOUNT_FLAGS = { authRequired: 1, authRevocable: 2, authImmutable: 4, authClawbackEnabled: 8 } as const;
const MASK_ACCOUNT_FLAGS = 0xf;
export const TRUSTLINE_AUTHORIZED = 1;

export type SignerType = 'ed25519_public_key' | 'preauth_tx' | 'sha256_hash' | 'ed25519_signed_payload';

export interface SignerEntry {
  key: string;
  type: SignerType;
  weight: number;
}

export interface TrustlineEntry {
  code: string;
  issuer: string;
  balance: bigint;
  limit: bigint;
  flags: number;
  lastModifiedLedger: number;
}

export interface DataEntry {
  name: string;
  value: Uint8Array;
  lastModifiedLedger: number;
}

export interface AccountEntry {
  id: string;
  balance: bigint;
  seqNum: bigint;
  seqLedger: number;
  seqTime: bigint;
  masterWeight: number;
  lowThreshold: number;
  medThreshold: number;
  highThreshold: number;
  flags: number;
  homeDomain: string;
  inflationDest: string | null;
  signers: SignerEntry[];
  trustlines: TrustlineEntry[];
  data: DataEntry[];
  /** Reserves this account pays for entries it sponsors (a claimable balance counts one per claimant). */
  numSponsoring: number;
  lastModifiedLedger: number;
}

/** Every account a transaction may touch, loaded before it runs; null = does not exist. */
export type AccountsState = Map<string, AccountEntry | null>;

/** A claim predicate (ClaimPredicate); relative times only exist in operations, entries hold absolute ones. */
export type ClaimPredicate =
  | { type: 'unconditional' }
  | { type: 'and'; predicates: ClaimPredicate[] }
  | { type: 'or'; predicates: ClaimPredicate[] }
  | { type: 'not'; predicate: ClaimPredicate | null }
  | { type: 'before_absolute_time'; time: bigint }
  | { type: 'before_relative_time'; seconds: bigint };

export interface ClaimantEntry {
  destination: string;
  predicate: ClaimPredicate;
}

export interface ClaimableBalanceEntry {
  /** The ClaimableBalanceID v0 hash, 64 hex digits (Horizon prints it behind the 00000000 type prefix). */
  id: string;
  asset: DecodedAsset;
  amount: bigint;
  claimants: ClaimantEntry[];
  /** The account paying the reserve (base reserve × claimants): the creating operation's source. */
  sponsor: string;
  /** ClaimableBalanceFlags (1 = clawback enabled); always 0 here, clawback is not modelled. */
  flags: number;
  lastModifiedLedger: number;
}

/** Every claimable balance a transaction may touch, loaded before it runs; null = does not exist. */
export type BalancesState = Map<string, ClaimableBalanceEntry | null>;

export interface LedgerContext {
  /** The ledger this transaction would close. */
  ledgerSeq: number;
  /** Its close time, unix seconds. */
  closeTime: bigint;
  baseFee: bigint;
  baseReserve: bigint;
}

export interface ParsedEnvelope {
  envelopeXdr: string;
  hash: Uint8Array;
  hashHex: string;
  /** 0 = v0, 2 = v1, 5 = fee bump. Only v1 is applied. */
  envelopeType: number;
  /** The v1 transaction (null for other envelope types). */
  tx: TxWire | null;
  signatures: SignatureWire[];
  /** The (fee) source account, a G address. */
  source: string;
}

/** Decodes a base64 envelope; null when it is not a valid TransactionEnvelope (Horizon's transaction_malformed). */
export const parseEnvelope = (envelopeXdr: string, passphrase: string): ParsedEnvelope | null => {
  let wire: EnvelopeWire;
  let hash: Uint8Array;
  try {
    wire = xdr.TransactionEnvelope.fromXdr(envelopeXdr, 'base64').toXdrObject();
    hash = TransactionBuilder.fromXDR(envelopeXdr, passphrase).hash();
  } catch {
    return null;
  }
  const hashHex = Buffer.from(hash).toString('hex');
  if (wire.type === 2) return { envelopeXdr, hash, hashHex, envelopeType: 2, tx: wire.v1.tx, signatures: wire.v1.signatures, source: muxedToAddress(wire.v1.tx.sourceAccount) };
  if (wire.type === 0)
    return { envelopeXdr, hash, hashHex, envelopeType: 0, tx: null, signatures: wire.v0.signatures, source: StrKey.encodeEd25519PublicKey(wire.v0.tx.sourceAccountEd25519) };
  return { envelopeXdr, hash, hashHex, envelopeType: 5, tx: null, signatures: wire.feeBump.signatures, source: muxedToAddress(wire.feeBump.tx.feeSource) };
};

export const muxedToAddress = (m: MuxedAccountWire): string =>
  StrKey.encodeEd25519PublicKey(m.type === 0 ? m.ed25519 : m.med25519.ed25519);

export const opSourceAddress = (tx: TxWire, op: OperationWire): string => (op.sourceAccount ? muxedToAddress(op.sourceAccount) : muxedToAddress(tx.sourceAccount));

export interface DecodedAsset {
  type: 'native' | 'credit_alphanum4' | 'credit_alphanum12';
  code: string;
  issuer: string;
}

const decodeCode = (bytes: Uint8Array, alphanum12: boolean): string | null => {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end -= 1;
  const code = Buffer.from(bytes.subarray(0, end)).toString('latin1');
  if (!/^[A-Za-z0-9]+$/.test(code)) return null; // also rejects zeros in the middle
  if (alphanum12 ? code.length < 5 : code.length < 1) return null;
  return code;
};

/** Decodes an asset; null when malformed (bad code). Pool shares come back as type 'pool'. */
export const decodeAsset = (a: AssetWire | ChangeTrustAssetWire): DecodedAsset | 'pool' | null => {
  if (a.type === 0) return { type: 'native', code: 'XLM', issuer: '' };
  if (a.type === 1) {
    const code = decodeCode(a.alphaNum4.assetCode, false);
    return code ? { type: 'credit_alphanum4', code, issuer: StrKey.encodeEd25519PublicKey(a.alphaNum4.issuer.ed25519) } : null;
  }
  if (a.type === 2) {
    const code = decodeCode(a.alphaNum12.assetCode, true);
    return code ? { type: 'credit_alphanum12', code, issuer: StrKey.encodeEd25519PublicKey(a.alphaNum12.issuer.ed25519) } : null;
  }
  return 'pool';
};

const signedPayloadRaw = (key: Extract<SignerKeyWire, { type: 3 }>): Uint8Array =>
  xdr.SignerKeyEd25519SignedPayload.fromXdrObject(key.ed25519SignedPayload).toXdr();

/** A signer key as Horizon prints it (G…, T…, X…, P…) and its type name. */
export const signerKeyString = (key: SignerKeyWire): { key: string; type: SignerType } => {
  switch (key.type) {
    case 0:
      return { key: StrKey.encodeEd25519PublicKey(key.ed25519), type: 'ed25519_public_key' };
    case 1:
      return { key: StrKey.encodePreAuthTx(key.preAuthTx), type: 'preauth_tx' };
    case 2:
      return { key: StrKey.encodeSha256Hash(key.hashX), type: 'sha256_hash' };
    default:
      return { key: StrKey.encodeSignedPayload(signedPayloadRaw(key)), type: 'ed25519_signed_payload' };
  }
};

const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
const sha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest();
const hintOf = (key: Uint8Array): Uint8Array => key.subarray(key.length - 4);

/** How many verdicts the signature cache keeps (stellar-core's verify-sig cache holds 0xffff). */
const VERIFY_CACHE_SIZE = 0xffff;
const verified = new Map<string, boolean>();

/**
 * An ed25519 verification, remembered: stellar-core's PubKeyUtils::verifySig keeps the verdict of every (key,
 * signature, message) it checked in a process-wide bounded cache (crypto/SecretKey.cpp, a RandomEvictionCache),
 * because the same signature is checked again for every operation whose source it signs and again when a transaction
 * is resubmitted. The verdict is a pure function of the three, so remembering it changes no outcome; it only spares
 * the SDK's pure-JS verification (about 2 ms each). The oldest verdict goes first when the cache is full.
 */
const verifySignature = (publicKey: string, message: Uint8Array, signature: Uint8Array): boolean => {
  const key = createHash('sha256').update(publicKey).update(message).update(signature).digest('base64');
  const known = verified.get(key);
  if (known !== undefined) return known;
  const verdict = Keypair.fromPublicKey(publicKey).verify(Buffer.from(message), Buffer.from(signature));
  if (verified.size >= VERIFY_CACHE_SIZE) verified.delete(verified.keys().next().value!);
  verified.set(key, verdict);
  return verdict;
};

/**
 * stellar-core's SignatureChecker: pre-authorised transactions first, then hash(x) preimages, ed25519 keys and
 * signed payloads, each signature counted once per check, marked used; stops as soon as the weight is reached.
 */
export class SignatureChecker {
  private readonly used: boolean[];
  private readonly preAuthKey: string;

  constructor(
    private readonly txHash: Uint8Array,
    private readonly signatures: SignatureWire[],
  ) {
    this.used = signatures.map(() => false);
    this.preAuthKey = StrKey.encodePreAuthTx(txHash);
  }

  check(signers: SignerEntry[], neededWeight: number): boolean {
    let total = 0;
    for (const s of signers) {
      if (s.type === 'preauth_tx' && s.key === this.preAuthKey) {
        total += Math.min(s.weight, 255);
        if (total >= neededWeight) return true;
      }
    }
    const verifyAll = (type: SignerType, verify: (sig: SignatureWire, signer: SignerEntry) => boolean): boolean => {
      const remaining = signers.filter((s) => s.type === type);
      for (let i = 0; i < this.signatures.length; i++) {
        const sig = this.signatures[i]!;
        const at = remaining.findIndex((s) => verify(sig, s));
        if (at < 0) continue;
        this.used[i] = true;
        total += Math.min(remaining[at]!.weight, 255);
        if (total >= neededWeight) return true;
        remaining.splice(at, 1);
      }
      return false;
    };
    return (
      verifyAll('sha256_hash', (sig, s) => {
        const x = StrKey.decodeSha256Hash(s.key);
        return bytesEqual(sig.hint, hintOf(x)) && bytesEqual(sha256(sig.signature), x);
      }) ||
      verifyAll('ed25519_public_key', (sig, s) => {
        const pk = StrKey.decodeEd25519PublicKey(s.key);
        return bytesEqual(sig.hint, hintOf(pk)) && sig.signature.length === 64 && verifySignature(s.key, this.txHash, sig.signature);
      }) ||
      verifyAll('ed25519_signed_payload', (sig, s) => {
        const sp = xdr.SignerKeyEd25519SignedPayload.fromXdr(StrKey.decodeSignedPayload(s.key)).toXdrObject();
        const payloadHint = new Uint8Array(4);
        payloadHint.set(sp.payload.length >= 4 ? sp.payload.subarray(sp.payload.length - 4) : sp.payload);
        const hint = hintOf(sp.ed25519).map((b, i) => b ^ payloadHint[i]!);
        return (
          bytesEqual(sig.hint, hint) &&
          sig.signature.length === 64 &&
          verifySignature(StrKey.encodeEd25519PublicKey(sp.ed25519), sp.payload, sig.signature)
        );
      })
    );
  }

  allUsed(): boolean {
    return this.used.every(Boolean);
  }
}

const accountSigners = (acc: AccountEntry): SignerEntry[] =>
  acc.masterWeight > 0 ? [{ key: acc.id, type: 'ed25519_public_key', weight: acc.masterWeight }, ...acc.signers] : acc.signers;

export const numSubEntries = (acc: AccountEntry): number => acc.signers.length + acc.trustlines.length + acc.data.length;

/** core's getMinBalance: (2 + subentries + numSponsoring − numSponsored) × base reserve (nothing is sponsored here). */
const minBalance = (acc: AccountEntry, ctx: LedgerContext, extraSubEntries = 0): bigint =>
  (2n + BigInt(numSubEntries(acc) + extraSubEntries + acc.numSponsoring)) * ctx.baseReserve;

const availableBalance = (acc: AccountEntry, ctx: LedgerContext, extraSubEntries = 0): bigint =>
  acc.balance - minBalance(acc, ctx, extraSubEntries);

export const startingSequence = (ledgerSeq: number): bigint => BigInt(ledgerSeq) << 32n;

export const newAccount = (id: string, balance: bigint, ledgerSeq: number): AccountEntry => ({
  id,
  balance,
  seqNum: startingSequence(ledgerSeq),
  seqLedger: 0,
  seqTime: 0n,
  masterWeight: 1,
  lowThreshold: 0,
  medThreshold: 0,
  highThreshold: 0,
  flags: 0,
  homeDomain: '',
  inflationDest: null,
  signers: [],
  trustlines: [],
  data: [],
  numSponsoring: 0,
  lastModifiedLedger: ledgerSeq,
});

type Level = 'low' | 'med' | 'high';

const thresholdLevel = (op: OperationWire): Level => {
  const b = op.body;
  if (b.type === OP.bumpSequence || b.type === OP.claimClaimableBalance) return 'low'; // ClaimClaimableBalanceOpFrame: LOW
  if (b.type === OP.accountMerge) return 'high';
  if (b.type === OP.setOptions) {
    const o = b.setOptionsOp;
    if (o.masterWeight !== null || o.lowThreshold !== null || o.medThreshold !== null || o.highThreshold !== null || o.signer !== null) return 'high';
  }
  return 'med';
};

const neededWeight = (acc: AccountEntry, level: Level): number =>
  level === 'low' ? acc.lowThreshold : level === 'med' ? acc.medThreshold : acc.highThreshold;

/** Printable ASCII only, as core's isStringValid for home domains and data names. */
const validString = (bytes: Uint8Array): boolean => bytes.every((c) => c >= 0x20 && c < 0x7f);

/** Operation-specific well-formedness (doCheckValid); returns the failing outcome or null. */
const checkOperationWellFormed = (op: OperationWire, source: string): OpOutcome | null => {
  const b = op.body;
  switch (b.type) {
    case OP.createAccount: {
      const dest = StrKey.encodeEd25519PublicKey(b.createAccountOp.destination.ed25519);
      if (b.createAccountOp.startingBalance < 0n || dest === source) return opInner(OP.createAccount, 'op_malformed');
      return null;
    }
    case OP.payment: {
      const asset = decodeAsset(b.paymentOp.asset);
      if (b.paymentOp.amount <= 0n || asset === null || asset === 'pool') return opInner(OP.payment, 'op_malformed');
      return null;
    }
    case OP.setOptions: {
      const o = b.setOptionsOp;
      if ((o.setFlags ?? 0) & ~MASK_ACCOUNT_FLAGS || (o.clearFlags ?? 0) & ~MASK_ACCOUNT_FLAGS) return opInner(OP.setOptions, 'op_unknown_flag');
      if ((o.setFlags ?? 0) & (o.clearFlags ?? 0)) return opInner(OP.setOptions, 'op_bad_flags');
      for (const t of [o.masterWeight, o.lowThreshold, o.medThreshold, o.highThreshold]) {
        if (t !== null && t > 255) return opInner(OP.setOptions, 'op_threshold_out_of_range');
      }
      if (o.signer) {
        const { key, type } = signerKeyString(o.signer.key);
        if (key === source || o.signer.weight > 255) return opInner(OP.setOptions, 'op_bad_signer');
        if (type === 'ed25519_signed_payload' && o.signer.key.type === 3 && o.signer.key.ed25519SignedPayload.payload.length === 0)
          return opInner(OP.setOptions, 'op_bad_signer');
      }
      if (o.homeDomain && !validString(o.homeDomain.bytes)) return opInner(OP.setOptions, 'op_invalid_home_domain');
      return null;
    }
    case OP.changeTrust: {
      const asset = decodeAsset(b.changeTrustOp.line);
      if (asset === 'pool') return opOuter('op_not_supported');
      if (b.changeTrustOp.limit < 0n || asset === null || asset.type === 'native') return opInner(OP.changeTrust, 'op_malformed');
      if (asset.issuer === source) return opInner(OP.changeTrust, 'op_self_not_allowed');
      return null;
    }
    case OP.accountMerge:
      return muxedToAddress(b.destination) === source ? opInner(OP.accountMerge, 'op_malformed') : null;
    case OP.manageData: {
      const name = b.manageDataOp.dataName.bytes;
      return name.length < 1 || !validString(name) ? opInner(OP.manageData, 'op_data_invalid_name') : null;
    }
    case OP.bumpSequence:
      return b.bumpSequenceOp.bumpTo < 0n ? opInner(OP.bumpSequence, 'op_bad_seq') : null;
    case OP.createClaimableBalance: {
      // CreateClaimableBalanceOpFrame::doCheckValid: valid asset, amount > 0, claimants, no duplicate, valid predicates.
      const o = b.createClaimableBalanceOp;
      const asset = decodeAsset(o.asset);
      const destinations = o.claimants.map((c) => StrKey.encodeEd25519PublicKey(c.v0.destination.ed25519));
      if (asset === null || asset === 'pool' || o.amount <= 0n || o.claimants.length === 0 || new Set(destinations).size !== destinations.length)
        return opInner(OP.createClaimableBalance, 'op_malformed');
      if (!o.claimants.every((c) => validPredicate(predicateFromWire(c.v0.predicate), 1))) return opInner(OP.createClaimableBalance, 'op_malformed');
      return null;
    }
    case OP.claimClaimableBalance:
      return null; // ClaimClaimableBalanceOpFrame::doCheckValid accepts everything
    default:
      return opOuter('op_not_supported');
  }
};

// ---- claimable balances -----------------------------------------------------------------------------------

export const predicateFromWire = (p: ClaimPredicateWire): ClaimPredicate => {
  switch (p.type) {
    case 0:
      return { type: 'unconditional' };
    case 1:
      return { type: 'and', predicates: p.andPredicates.map(predicateFromWire) };
    case 2:
      return { type: 'or', predicates: p.orPredicates.map(predicateFromWire) };
    case 3:
      return { type: 'not', predicate: p.notPredicate ? predicateFromWire(p.notPredicate) : null };
    case 4:
      return { type: 'before_absolute_time', time: p.absBefore };
    default:
      return { type: 'before_relative_time', seconds: p.relBefore };
  }
};

/** CreateClaimableBalanceOpFrame's validatePredicate: depth ≤ 4, and/or of exactly two, not of one, times ≥ 0. */
export const validPredicate = (p: ClaimPredicate, depth: number): boolean => {
  if (depth > 4) return false;
  switch (p.type) {
    case 'unconditional':
      return true;
    case 'and':
    case 'or':
      return p.predicates.length === 2 && p.predicates.every((q) => validPredicate(q, depth + 1));
    case 'not':
      return p.predicate !== null && validPredicate(p.predicate, depth + 1);
    case 'before_absolute_time':
      return p.time >= 0n;
    case 'before_relative_time':
      return p.seconds >= 0n;
  }
};

/** updatePredicatesForApply: relative times become closeTime + relative (saturating at INT64_MAX). */
export const absolutePredicate = (p: ClaimPredicate, closeTime: bigint): ClaimPredicate => {
  switch (p.type) {
    case 'and':
    case 'or':
      return { type: p.type, predicates: p.predicates.map((q) => absolutePredicate(q, closeTime)) };
    case 'not':
      return { type: 'not', predicate: p.predicate ? absolutePredicate(p.predicate, closeTime) : null };
    case 'before_relative_time':
      return { type: 'before_absolute_time', time: closeTime > INT64_MAX - p.seconds ? INT64_MAX : closeTime + p.seconds };
    default:
      return p;
  }
};

/** ClaimClaimableBalanceOpFrame's validatePredicate against the ledger's close time (absBefore > closeTime). */
export const predicateHolds = (p: ClaimPredicate, closeTime: bigint): boolean => {
  switch (p.type) {
    case 'unconditional':
      return true;
    case 'and':
      return predicateHolds(p.predicates[0]!, closeTime) && predicateHolds(p.predicates[1]!, closeTime);
    case 'or':
      return predicateHolds(p.predicates[0]!, closeTime) || predicateHolds(p.predicates[1]!, closeTime);
    case 'not':
      return !predicateHolds(p.predicate!, closeTime);
    case 'before_absolute_time':
      return p.time > closeTime;
    case 'before_relative_time':
      throw new Error('a stored predicate is never relative');
  }
};

/**
 * CreateClaimableBalanceOpFrame::getBalanceID: sha256 of the XDR HashIDPreimage ENVELOPE_TYPE_OP_ID with the
 * transaction's source account and sequence number and the operation's index. The 32-byte hash (the v0 arm).
 */
export const claimableBalanceHash = (txSource: string, seqNum: bigint, opIndex: number): Uint8Array =>
  sha256(
    xdr.HashIdPreimage.envelopeTypeOpId(
      new xdr.HashIdPreimageOperationId({
        sourceAccount: xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(txSource)),
        seqNum: xdr.Int64.fromString(seqNum.toString()),
        opNum: opIndex,
      }),
    ).toXDR(),
  );

/** The balance id as Horizon and the SDK write it: the XDR ClaimableBalanceID in hex (type 0 = 00000000, then the hash). */
export const balanceIdString = (hashHex: string): string => `00000000${hashHex}`;


export type Verdict =
  | { kind: 'rejected'; txCode: TxCode; feeCharged: bigint; ops: OpOutcome[] | null }
  | { kind: 'applied'; successful: boolean; feeCharged: bigint; ops: OpOutcome[]; state: AccountsState; balances: BalancesState };

interface World {
  accounts: AccountsState;
  balances: BalancesState;
}

const cloneWorld = (w: World): World => structuredClone(w);

/** The ids (hash hex) of the claimable balances a transaction's claims name: load them before touchedAccounts. */
export const touchedBalances = (env: ParsedEnvelope): string[] => {
  const ids = new Set<string>();
  for (const op of env.tx?.operations ?? []) {
    if (op.body.type === OP.claimClaimableBalance) ids.add(Buffer.from(op.body.claimClaimableBalanceOp.balanceId.v0).toString('hex'));
  }
  return [...ids];
};

/**
 * The ids of every account a transaction may read or write: load them all before calling processTransaction.
 * With the claimable balances it claims (touchedBalances), their sponsors too (a claim gives their reserve back).
 */
export const touchedAccounts = (env: ParsedEnvelope, balances?: BalancesState): string[] => {
  const ids = new Set<string>([env.source]);
  const tx = env.tx;
  if (!tx) return [...ids];
  for (const entry of balances?.values() ?? []) if (entry) ids.add(entry.sponsor);
  for (const op of tx.operations) {
    ids.add(opSourceAddress(tx, op));
    const b = op.body;
    if (b.type === OP.createAccount) ids.add(StrKey.encodeEd25519PublicKey(b.createAccountOp.destination.ed25519));
    if (b.type === OP.payment) ids.add(muxedToAddress(b.paymentOp.destination));
    if (b.type === OP.accountMerge) ids.add(muxedToAddress(b.destination));
    if (b.type === OP.setOptions && b.setOptionsOp.inflationDest) ids.add(StrKey.encodeEd25519PublicKey(b.setOptionsOp.inflationDest.ed25519));
  }
  return [...ids];
};

const preconditions = (tx: TxWire) => {
  const c = tx.cond;
  if (c.type === 1) return { timeBounds: c.timeBounds, ledgerBounds: null, minSeqNum: null, minSeqAge: 0n, minSeqLedgerGap: 0, extraSigners: [] as SignerKeyWire[] };
  if (c.type === 2) return c.v2;
  return { timeBounds: null, ledgerBounds: null, minSeqNum: null, minSeqAge: 0n, minSeqLedgerGap: 0, extraSigners: [] as SignerKeyWire[] };
};

/**
 * Validates (checkValid) and, when valid, applies (apply) one transaction in a ledger of its own.
 * Rejected transactions change nothing; applied ones always consume the fee and the sequence number and
 * remove the pre-authorised signer matching their hash from every source account, whether their operations
 * succeed (all of them) or not (none of their effects are kept).
 */
export const processTransaction = (env: ParsedEnvelope, state: AccountsState, ctx: LedgerContext, balances: BalancesState = new Map()): Verdict => {
  const reject = (txCode: TxCode, ops: OpOutcome[] | null = null, feeCharged = 0n): Verdict => ({ kind: 'rejected', txCode, feeCharged, ops });
  const tx = env.tx;
  if (env.envelopeType !== 2 || !tx) return reject('tx_not_supported');
  const pre = preconditions(tx);
  if (pre.extraSigners.length === 2 && signerKeyString(pre.extraSigners[0]!).key === signerKeyString(pre.extraSigners[1]!).key) return reject('tx_malformed');
  const ops = tx.operations;
  if (ops.length === 0) return reject('tx_missing_operation');

  // Time and ledger bounds against the ledger being closed.
  const tb = pre.timeBounds;
  if ((tb && tb.minTime !== 0n && tb.minTime > ctx.closeTime) || (pre.ledgerBounds && pre.ledgerBounds.minLedger > ctx.ledgerSeq)) return reject('tx_too_early');
  if ((tb && tb.maxTime !== 0n && tb.maxTime < ctx.closeTime) || (pre.ledgerBounds && pre.ledgerBounds.maxLedger !== 0 && pre.ledgerBounds.maxLedger <= ctx.ledgerSeq))
    return reject('tx_too_late');

  const minFee = ctx.baseFee * BigInt(ops.length);
  if (BigInt(tx.fee) < minFee) return reject('tx_insufficient_fee');

  const source = state.get(env.source);
  if (!source) return reject('tx_no_source_account');

  // Sequence number (with the v19 minSeqNum relaxation).
  const txSeq = tx.seqNum;
  const badSeq =
    txSeq === startingSequence(ctx.ledgerSeq) ||
    (pre.minSeqNum !== null ? source.seqNum < pre.minSeqNum || source.seqNum >= txSeq : source.seqNum === INT64_MAX || source.seqNum + 1n !== txSeq);
  if (badSeq) return reject('tx_bad_seq');
  if (
    pre.minSeqAge > ctx.closeTime ||
    ctx.closeTime - pre.minSeqAge < source.seqTime ||
    pre.minSeqLedgerGap > ctx.ledgerSeq ||
    ctx.ledgerSeq - pre.minSeqLedgerGap < source.seqLedger
  )
    return reject('tx_bad_minseq_age_or_gap');

  const checker = new SignatureChecker(env.hash, env.signatures);
  if (!checker.check(accountSigners(source), source.lowThreshold)) return reject('tx_bad_auth');
  if (pre.extraSigners.length > 0) {
    const extra = pre.extraSigners.map((k) => ({ ...signerKeyString(k), weight: 1 }));
    if (!checker.check(extra, extra.length)) return reject('tx_bad_auth');
  }
  if (availableBalance(source, ctx) < BigInt(tx.fee)) return reject('tx_insufficient_balance');

  // Operations: supported, signed by their source with the needed threshold, well formed.
  const validation = ops.map((op) => opSuccess(op.body.type));
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const opSource = opSourceAddress(tx, op);
    let failure: OpOutcome | null;
    if (!SUPPORTED_OPS.has(op.body.type)) failure = opOuter('op_not_supported');
    else {
      const acc = state.get(opSource);
      const authorised = acc
        ? checker.check(accountSigners(acc), neededWeight(acc, thresholdLevel(op)))
        : checker.check([{ key: opSource, type: 'ed25519_public_key', weight: 1 }], 0);
      failure = authorised ? checkOperationWellFormed(op, opSource) : opOuter('op_bad_auth');
    }
    if (failure) {
      validation[i] = failure;
      return reject('tx_failed', validation, minFee);
    }
  }
  if (!checker.allUsed()) return reject('tx_bad_auth_extra', null, minFee);

  // Apply: fee and sequence number first, kept whatever happens next.
  const baseWorld = cloneWorld({ accounts: state, balances });
  const base = baseWorld.accounts;
  const src = base.get(env.source)!;
  const fee = src.balance < minFee ? src.balance : minFee;
  src.balance -= fee;
  src.seqNum = txSeq;
  src.seqLedger = ctx.ledgerSeq;
  src.seqTime = ctx.closeTime;
  // One-time (pre-authorised transaction) signers are consumed by being applied, success or failure.
  const preAuthKey = StrKey.encodePreAuthTx(env.hash);
  for (const id of new Set([env.source, ...ops.map((op) => opSourceAddress(tx, op))])) {
    const acc = base.get(id);
    if (acc) acc.signers = acc.signers.filter((s) => s.key !== preAuthKey);
  }

  let working = cloneWorld(baseWorld);
  let successful = true;
  const outcomes: OpOutcome[] = [];
  ops.forEach((op, index) => {
    const attempt = cloneWorld(working);
    const outcome = applyOperation(env, op, index, attempt, ctx);
    outcomes.push(outcome);
    if (outcome.code === 'op_success') working = attempt;
    else successful = false;
  });
  const final = successful ? working : baseWorld;
  return { kind: 'applied', successful, feeCharged: fee, ops: outcomes, state: final.accounts, balances: final.balances };
};

const findTrustline = (acc: AccountEntry, code: string, issuer: string): TrustlineEntry | undefined =>
  acc.trustlines.find((t) => t.code === code && t.issuer === issuer);

const applyOperation = (env: ParsedEnvelope, op: OperationWire, opIndex: number, world: World, ctx: LedgerContext): OpOutcome => {
  const tx = env.tx!;
  const state = world.accounts;
  const sourceId = opSourceAddress(tx, op);
  const source = state.get(sourceId);
  if (!source) return opOuter('op_no_source_account');
  const b = op.body;
  switch (b.type) {
    case OP.createAccount: {
      const destId = StrKey.encodeEd25519PublicKey(b.createAccountOp.destination.ed25519);
      const amount = b.createAccountOp.startingBalance;
      if (state.get(destId)) return opInner(OP.createAccount, 'op_already_exists');
      if (amount < 2n * ctx.baseReserve) return opInner(OP.createAccount, 'op_low_reserve');
      if (availableBalance(source, ctx) < amount) return opInner(OP.createAccount, 'op_underfunded');
      source.balance -= amount;
      state.set(destId, newAccount(destId, amount, ctx.ledgerSeq));
      return opInner(OP.createAccount, 'op_success');
    }
    case OP.payment: {
      const destId = muxedToAddress(b.paymentOp.destination);
      const asset = decodeAsset(b.paymentOp.asset) as DecodedAsset;
      const amount = b.paymentOp.amount;
      const dest = state.get(destId);
      if (!dest) return opInner(OP.payment, 'op_no_destination');
      // Credit the destination first, then debit the source, as core's path payment does.
      if (asset.type === 'native') {
        if (dest.balance > INT64_MAX - amount) return opInner(OP.payment, 'op_line_full');
        dest.balance += amount;
        if (availableBalance(source, ctx) < amount) return opInner(OP.payment, 'op_underfunded');
        source.balance -= amount;
        return opInner(OP.payment, 'op_success');
      }
      if (destId !== asset.issuer) {
        const line = findTrustline(dest, asset.code, asset.issuer);
        if (!line) return opInner(OP.payment, 'op_no_trust');
        if (!(line.flags & TRUSTLINE_AUTHORIZED)) return opInner(OP.payment, 'op_not_authorized');
        if (line.balance > line.limit - amount) return opInner(OP.payment, 'op_line_full');
        line.balance += amount;
      } // paid back to the issuer: burnt
      if (sourceId !== asset.issuer) {
        const line = findTrustline(source, asset.code, asset.issuer);
        if (!line) return opInner(OP.payment, 'op_src_no_trust');
        if (!(line.flags & TRUSTLINE_AUTHORIZED)) return opInner(OP.payment, 'op_src_not_authorized');
        if (line.balance < amount) return opInner(OP.payment, 'op_underfunded');
        line.balance -= amount;
      } // paid by the issuer: minted
      return opInner(OP.payment, 'op_success');
    }
    case OP.setOptions: {
      const o = b.setOptionsOp;
      if (o.inflationDest) {
        const dest = StrKey.encodeEd25519PublicKey(o.inflationDest.ed25519);
        if (!state.get(dest)) return opInner(OP.setOptions, 'op_invalid_inflation');
        source.inflationDest = dest;
      }
      if (o.clearFlags !== null || o.setFlags !== null) {
        if (((o.clearFlags ?? 0) | (o.setFlags ?? 0)) && source.flags & ACCOUNT_FLAGS.authImmutable) return opInner(OP.setOptions, 'op_cant_change');
        source.flags = (source.flags & ~(o.clearFlags ?? 0)) | (o.setFlags ?? 0);
        if (source.flags & ACCOUNT_FLAGS.authClawbackEnabled && !(source.flags & ACCOUNT_FLAGS.authRevocable)) return opInner(OP.setOptions, 'op_auth_revocable_required');
      }
      if (o.homeDomain) source.homeDomain = Buffer.from(o.homeDomain.bytes).toString('latin1');
      if (o.masterWeight !== null) source.masterWeight = o.masterWeight;
      if (o.lowThreshold !== null) source.lowThreshold = o.lowThreshold;
      if (o.medThreshold !== null) source.medThreshold = o.medThreshold;
      if (o.highThreshold !== null) source.highThreshold = o.highThreshold;
      if (o.signer) {
        const { key, type } = signerKeyString(o.signer.key);
        const existing = source.signers.find((s) => s.key === key);
        if (o.signer.weight === 0) source.signers = source.signers.filter((s) => s.key !== key);
        else if (existing) existing.weight = o.signer.weight;
        else {
          if (source.signers.length >= MAX_SIGNERS) return opInner(OP.setOptions, 'op_too_many_signers');
          if (availableBalance(source, ctx, 1) < 0n) return opInner(OP.setOptions, 'op_low_reserve');
          source.signers = [...source.signers, { key, type, weight: o.signer.weight }].sort((x, y) => (x.key < y.key ? -1 : 1));
        }
      }
      return opInner(OP.setOptions, 'op_success');
    }
    case OP.changeTrust: {
      const asset = decodeAsset(b.changeTrustOp.line) as DecodedAsset;
      const limit = b.changeTrustOp.limit;
      const line = findTrustline(source, asset.code, asset.issuer);
      if (line) {
        if (limit === 0n) {
          if (line.balance > 0n) return opInner(OP.changeTrust, 'op_invalid_limit');
          source.trustlines = source.trustlines.filter((t) => t !== line);
        } else {
          if (limit < line.balance) return opInner(OP.changeTrust, 'op_invalid_limit');
          line.limit = limit;
        }
        return opInner(OP.changeTrust, 'op_success');
      }
      if (limit === 0n) return opInner(OP.changeTrust, 'op_invalid_limit');
      if (availableBalance(source, ctx, 1) < 0n) return opInner(OP.changeTrust, 'op_low_reserve');
      source.trustlines = [...source.trustlines, { code: asset.code, issuer: asset.issuer, balance: 0n, limit, flags: TRUSTLINE_AUTHORIZED, lastModifiedLedger: ctx.ledgerSeq }];
      return opInner(OP.changeTrust, 'op_success');
    }
    case OP.accountMerge: {
      const destId = muxedToAddress(b.destination);
      const dest = state.get(destId);
      if (!dest) return opInner(OP.accountMerge, 'op_no_account');
      if (source.flags & ACCOUNT_FLAGS.authImmutable) return opInner(OP.accountMerge, 'op_immutable_set');
      // MergeOpFrame::doApplyFromV16: signers do not block a merge (numSubEntries != signers.size()), they go with it.
      if (numSubEntries(source) !== source.signers.length) return opInner(OP.accountMerge, 'op_has_sub_entries');
      if (source.seqNum >= startingSequence(ctx.ledgerSeq)) return opInner(OP.accountMerge, 'op_seq_num_too_far');
      if (source.numSponsoring > 0) return opInner(OP.accountMerge, 'op_is_sponsor');
      if (dest.balance > INT64_MAX - source.balance) return opInner(OP.accountMerge, 'op_dest_full');
      const moved = source.balance;
      dest.balance += moved;
      state.set(sourceId, null);
      return opInner(OP.accountMerge, 'op_success', moved);
    }
    case OP.manageData: {
      const name = Buffer.from(b.manageDataOp.dataName.bytes).toString('latin1');
      const value = b.manageDataOp.dataValue;
      const existing = source.data.find((d) => d.name === name);
      if (value === null) {
        if (!existing) return opInner(OP.manageData, 'op_data_name_not_found');
        source.data = source.data.filter((d) => d !== existing);
        return opInner(OP.manageData, 'op_success');
      }
      if (existing) existing.value = value;
      else {
        if (availableBalance(source, ctx, 1) < 0n) return opInner(OP.manageData, 'op_low_reserve');
        source.data = [...source.data, { name, value, lastModifiedLedger: ctx.ledgerSeq }];
      }
      return opInner(OP.manageData, 'op_success');
    }
    case OP.bumpSequence: {
      if (b.bumpSequenceOp.bumpTo > source.seqNum) {
        source.seqNum = b.bumpSequenceOp.bumpTo;
        source.seqLedger = ctx.ledgerSeq;
        source.seqTime = ctx.closeTime;
      }
      return opInner(OP.bumpSequence, 'op_success');
    }
    case OP.createClaimableBalance: {
      // CreateClaimableBalanceOpFrame::doApply: take the amount, then the reserve (base reserve × claimants).
      const o = b.createClaimableBalanceOp;
      const asset = decodeAsset(o.asset) as DecodedAsset;
      const amount = o.amount;
      if (asset.type === 'native') {
        if (availableBalance(source, ctx) < amount) return opInner(OP.createClaimableBalance, 'op_underfunded');
        source.balance -= amount;
      } else if (sourceId !== asset.issuer) {
        const line = findTrustline(source, asset.code, asset.issuer);
        if (!line) return opInner(OP.createClaimableBalance, 'op_no_trust');
        if (!(line.flags & TRUSTLINE_AUTHORIZED)) return opInner(OP.createClaimableBalance, 'op_not_authorized');
        if (line.balance < amount) return opInner(OP.createClaimableBalance, 'op_underfunded');
        line.balance -= amount;
      } // the issuer's own asset: minted into the balance
      const reserve = BigInt(o.claimants.length) * ctx.baseReserve;
      if (availableBalance(source, ctx) < reserve) return opInner(OP.createClaimableBalance, 'op_low_reserve');
      source.numSponsoring += o.claimants.length;
      const hash = claimableBalanceHash(env.source, tx.seqNum, opIndex);
      world.balances.set(Buffer.from(hash).toString('hex'), {
        id: Buffer.from(hash).toString('hex'),
        asset,
        amount,
        claimants: o.claimants.map((c) => ({
          destination: StrKey.encodeEd25519PublicKey(c.v0.destination.ed25519),
          predicate: absolutePredicate(predicateFromWire(c.v0.predicate), ctx.closeTime),
        })),
        sponsor: sourceId,
        flags: 0,
        lastModifiedLedger: ctx.ledgerSeq,
      });
      return opInner(OP.createClaimableBalance, 'op_success', hash);
    }
    case OP.claimClaimableBalance: {
      // ClaimClaimableBalanceOpFrame::doApply, the predicate against this ledger's close time.
      const id = Buffer.from(b.claimClaimableBalanceOp.balanceId.v0).toString('hex');
      const entry = world.balances.get(id);
      if (!entry) return opInner(OP.claimClaimableBalance, 'op_does_not_exist');
      const claimant = entry.claimants.find((c) => c.destination === sourceId);
      if (!claimant || !predicateHolds(claimant.predicate, ctx.closeTime)) return opInner(OP.claimClaimableBalance, 'op_cannot_claim');
      if (entry.asset.type === 'native') {
        if (source.balance > INT64_MAX - entry.amount) return opInner(OP.claimClaimableBalance, 'op_line_full');
        source.balance += entry.amount;
      } else if (sourceId !== entry.asset.issuer) {
        const line = findTrustline(source, entry.asset.code, entry.asset.issuer);
        if (!line) return opInner(OP.claimClaimableBalance, 'op_no_trust');
        if (!(line.flags & TRUSTLINE_AUTHORIZED)) return opInner(OP.claimClaimableBalance, 'op_not_authorized');
        if (line.balance > line.limit - entry.amount) return opInner(OP.claimClaimableBalance, 'op_line_full');
        line.balance += entry.amount;
      } // claimed by the issuer: burnt
      const sponsor = state.get(entry.sponsor);
      if (sponsor) sponsor.numSponsoring -= entry.claimants.length;
      world.balances.set(id, null);
      return opInner(OP.claimClaimableBalance, 'op_success');
    }
    default:
      return opOuter('op_not_supported');
  }
};

export type { SupportedOpType };
