import { xdr } from '@stellar/stellar-sdk';

/** The XDR wire shapes of the SDK (plain objects, bigints, byte arrays), typed from its own declarations. */
export type EnvelopeWire = ReturnType<xdr.TransactionEnvelope['toXdrObject']>;
export type TxWire = Extract<EnvelopeWire, { type: 2 }>['v1']['tx'];
export type OperationWire = TxWire['operations'][number];
export type OperationBody = OperationWire['body'];
export type MuxedAccountWire = TxWire['sourceAccount'];
export type SignatureWire = Extract<EnvelopeWire, { type: 2 }>['v1']['signatures'][number];
export type AssetWire = Extract<OperationBody, { type: 1 }>['paymentOp']['asset'];
export type ChangeTrustAssetWire = Extract<OperationBody, { type: 6 }>['changeTrustOp']['line'];
export type SignerKeyWire = NonNullable<Extract<OperationBody, { type: 5 }>['setOptionsOp']['signer']>['key'];
export type CreateClaimableBalanceOpWire = Extract<OperationBody, { type: 14 }>['createClaimableBalanceOp'];
export type ClaimantWire = CreateClaimableBalanceOpWire['claimants'][number];
export type ClaimPredicateWire = ClaimantWire['v0']['predicate'];
export type TransactionResultWire = Parameters<typeof xdr.TransactionResult.fromXdrObject>[0];
export type OperationResultWire = Extract<TransactionResultWire['result'], { code: 0 }>['results'][number];

/** Horizon's names of the operation types, by XDR discriminant. */
export const OPERATION_TYPE_NAMES = [
  'create_account',
  'payment',
  'path_payment_strict_receive',
  'manage_sell_offer',
  'create_passive_sell_offer',
  'set_options',
  'change_trust',
  'allow_trust',
  'account_merge',
  'inflation',
  'manage_data',
  'bump_sequence',
  'manage_buy_offer',
  'path_payment_strict_send',
  'create_claimable_balance',
  'claim_claimable_balance',
  'begin_sponsoring_future_reserves',
  'end_sponsoring_future_reserves',
  'revoke_sponsorship',
  'clawback',
  'clawback_claimable_balance',
  'set_trust_line_flags',
  'liquidity_pool_deposit',
  'liquidity_pool_withdraw',
  'invoke_host_function',
  'extend_footprint_ttl',
  'restore_footprint',
] as const;

export const OP = {
  createAccount: 0,
  payment: 1,
  setOptions: 5,
  changeTrust: 6,
  accountMerge: 8,
  manageData: 10,
  bumpSequence: 11,
  createClaimableBalance: 14,
  claimClaimableBalance: 15,
} as const;
export type SupportedOpType = (typeof OP)[keyof typeof OP];
export const SUPPORTED_OPS: ReadonlySet<number> = new Set(Object.values(OP));

/** Transaction result codes: XDR value and Horizon's string (services/horizon/internal/codes). */
export const TX_CODES = {
  tx_success: 0,
  tx_failed: -1,
  tx_too_early: -2,
  tx_too_late: -3,
  tx_missing_operation: -4,
  tx_bad_seq: -5,
  tx_bad_auth: -6,
  tx_insufficient_balance: -7,
  tx_no_source_account: -8,
  tx_insufficient_fee: -9,
  tx_bad_auth_extra: -10,
  tx_internal_error: -11,
  tx_not_supported: -12,
  tx_bad_sponsorship: -14,
  tx_bad_minseq_age_or_gap: -15,
  tx_malformed: -16,
} as const;
export type TxCode = keyof typeof TX_CODES;

/** Operation-level (outer) result codes. */
export const OP_OUTER_CODES = { op_bad_auth: -1, op_no_source_account: -2, op_not_supported: -3 } as const;
export type OpOuterCode = keyof typeof OP_OUTER_CODES;

/** Inner result codes per supported operation type: Horizon string -> XDR value. */
export const OP_INNER_CODES = {
  [OP.createAccount]: { op_success: 0, op_malformed: -1, op_underfunded: -2, op_low_reserve: -3, op_already_exists: -4 },
  [OP.payment]: {
    op_success: 0,
    op_malformed: -1,
    op_underfunded: -2,
    op_src_no_trust: -3,
    op_src_not_authorized: -4,
    op_no_destination: -5,
    op_no_trust: -6,
    op_not_authorized: -7,
    op_line_full: -8,
    op_no_issuer: -9,
  },
  [OP.setOptions]: {
    op_success: 0,
    op_low_reserve: -1,
    op_too_many_signers: -2,
    op_bad_flags: -3,
    op_invalid_inflation: -4,
    op_cant_change: -5,
    op_unknown_flag: -6,
    op_threshold_out_of_range: -7,
    op_bad_signer: -8,
    op_invalid_home_domain: -9,
    op_auth_revocable_required: -10,
  },
  [OP.changeTrust]: {
    op_success: 0,
    op_malformed: -1,
    op_no_issuer: -2,
    op_invalid_limit: -3,
    op_low_reserve: -4,
    op_self_not_allowed: -5,
    op_trust_line_missing: -6,
    op_cannot_delete: -7,
    op_not_aut_maintain_liabilities: -8,
  },
  [OP.accountMerge]: {
    op_success: 0,
    op_malformed: -1,
    op_no_account: -2,
    op_immutable_set: -3,
    op_has_sub_entries: -4,
    op_seq_num_too_far: -5,
    op_dest_full: -6,
    op_is_sponsor: -7,
  },
  [OP.manageData]: { op_success: 0, op_not_supported_yet: -1, op_data_name_not_found: -2, op_low_reserve: -3, op_data_invalid_name: -4 },
  [OP.bumpSequence]: { op_success: 0, op_bad_seq: -1 },
  // CreateClaimableBalanceResultCode / ClaimClaimableBalanceResultCode (Stellar-transaction.x), Horizon's strings.
  [OP.createClaimableBalance]: { op_success: 0, op_malformed: -1, op_low_reserve: -2, op_no_trust: -3, op_not_authorized: -4, op_underfunded: -5 },
  [OP.claimClaimableBalance]: { op_success: 0, op_does_not_exist: -1, op_cannot_claim: -2, op_line_full: -3, op_no_trust: -4, op_not_authorized: -5 },
} as const;

/** The XDR arm holding each supported operation's inner result. */
const RESULT_ARMS: Record<SupportedOpType, string> = {
  [OP.createAccount]: 'createAccountResult',
  [OP.payment]: 'paymentResult',
  [OP.setOptions]: 'setOptionsResult',
  [OP.changeTrust]: 'changeTrustResult',
  [OP.accountMerge]: 'accountMergeResult',
  [OP.manageData]: 'manageDataResult',
  [OP.bumpSequence]: 'bumpSeqResult',
  [OP.createClaimableBalance]: 'createClaimableBalanceResult',
  [OP.claimClaimableBalance]: 'claimClaimableBalanceResult',
};

/** One operation's outcome: its XDR result and Horizon's string for it. */
export interface OpOutcome {
  code: string;
  result: OperationResultWire;
}

export const opOuter = (code: OpOuterCode): OpOutcome => ({ code, result: { code: OP_OUTER_CODES[code] } as OperationResultWire });

/**
 * An inner (operation-specific) result. `payload` is what a success carries: the merged balance of an
 * accountMerge (bigint), the balance id (the 32-byte hash) of a createClaimableBalance.
 */
export const opInner = (type: SupportedOpType, code: string, payload?: bigint | Uint8Array): OpOutcome => {
  const table = OP_INNER_CODES[type] as Record<string, number>;
  const value = table[code];
  if (value === undefined) throw new Error(`no result code ${code} for operation type ${type}`);
  const inner: Record<string, unknown> = { code: value };
  if (type === OP.accountMerge && value === 0) inner.sourceAccountBalance = typeof payload === 'bigint' ? payload : 0n;
  if (type === OP.createClaimableBalance && value === 0) {
    if (!(payload instanceof Uint8Array)) throw new Error('a created claimable balance needs its id');
    inner.balanceId = { type: 0, v0: payload };
  }
  return { code, result: { code: 0, tr: { type, [RESULT_ARMS[type]]: inner } } as unknown as OperationResultWire };
};

/** A placeholder success (what core leaves in results it did not get to: a zero balance id for a claimable balance). */
export const opSuccess = (type: number): OpOutcome =>
  SUPPORTED_OPS.has(type) ? opInner(type as SupportedOpType, 'op_success', type === OP.createClaimableBalance ? new Uint8Array(32) : undefined) : opOuter('op_not_supported');

/** A base64 TransactionResult, as Horizon's result_xdr. */
export const transactionResultXdr = (feeCharged: bigint, txCode: TxCode, ops: OpOutcome[] | null): string => {
  const code = TX_CODES[txCode];
  const result = (code === 0 || code === -1 ? { code, results: (ops ?? []).map((o) => o.result) } : { code }) as TransactionResultWire['result'];
  return xdr.TransactionResult.fromXdrObject({ feeCharged, result, ext: { v: 0 } }).toXdr('base64');
};

export interface ResultCodes {
  transaction: TxCode;
  operations?: string[];
}

export const resultCodes = (txCode: TxCode, ops: OpOutcome[] | null): ResultCodes =>
  txCode === 'tx_failed' && ops ? { transaction: txCode, operations: ops.map((o) => o.code) } : { transaction: txCode };
