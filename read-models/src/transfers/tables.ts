import type { V1TransferDoc, V1TransferStatus } from './fold';

export const V1_TRANSFERS_TABLE = 'rm_v1_transfers';

export interface V1TransferRow {
  id: string;
  seq: string;
  tenant_id: string;
  livemode: boolean;
  from_user_id: string;
  from_wallet: string;
  to_user_id: string | null;
  to_wallet: string;
  amount: string;
  currency: 'EUR';
  memo: string | null;
  status: V1TransferStatus;
  unsigned_xdr: string;
  tx_hash: string;
  expires_at: Date | string;
  created_via: string | null;
  created_at: Date | string;
  submitted_at: Date | string | null;
  settled_at: Date | string | null;
  ledger: number | null;
  failure_code: string | null;
  result_codes: string[] | null;
  ended_at: Date | string | null;
  revision: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

export const v1TransferRowOf = (d: V1TransferDoc) => ({
  id: d.transferId,
  tenant_id: d.tenantId,
  livemode: d.livemode,
  from_user_id: d.fromUserId,
  from_wallet: d.fromWallet,
  to_user_id: d.to.kind === 'account' ? d.to.userId : null,
  to_wallet: d.to.wallet,
  amount: d.amount,
  currency: d.currency,
  memo: d.memo,
  status: d.status,
  unsigned_xdr: d.unsignedXdr,
  tx_hash: d.txHash,
  expires_at: d.expiresAt,
  created_via: d.createdVia,
  created_at: d.createdAt,
  submitted_at: d.submittedAt,
  settled_at: d.settledAt,
  ledger: d.ledger,
  failure_code: d.failureCode,
  result_codes: d.resultCodes === null ? null : JSON.stringify(d.resultCodes),
  ended_at: d.endedAt,
  revision: d.revision.toString(),
});

export const v1TransferDocOf = (r: V1TransferRow): V1TransferDoc => ({
  transferId: r.id,
  tenantId: r.tenant_id,
  livemode: r.livemode,
  fromUserId: r.from_user_id,
  fromWallet: r.from_wallet,
  to: r.to_user_id ? { kind: 'account', userId: r.to_user_id, wallet: r.to_wallet } : { kind: 'address', wallet: r.to_wallet },
  amount: r.amount,
  currency: r.currency,
  memo: r.memo,
  status: r.status,
  unsignedXdr: r.unsigned_xdr,
  txHash: r.tx_hash,
  expiresAt: iso(r.expires_at),
  createdVia: r.created_via,
  createdAt: iso(r.created_at),
  submittedAt: isoOrNull(r.submitted_at),
  settledAt: isoOrNull(r.settled_at),
  ledger: r.ledger,
  failureCode: r.failure_code,
  resultCodes: r.result_codes,
  endedAt: isoOrNull(r.ended_at),
  revision: BigInt(r.revision),
});
