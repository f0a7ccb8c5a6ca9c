import type { EventData } from '@cagnotte/event-schemas';
import type { FoldEvent } from '../shared';

export type V1TransferStatus = 'requires_signature' | 'submitted' | 'settled' | 'failed' | 'canceled';

/** A transfer as rm_v1_transfers holds it, folded from its stream; `revision` makes a replay change nothing. */
export interface V1TransferDoc {
  transferId: string;
  tenantId: string;
  livemode: boolean;
  fromUserId: string;
  fromWallet: string;
  to: EventData<'TransferCreated'>['to'];
  amount: string;
  currency: 'EUR';
  memo: string | null;
  status: V1TransferStatus;
  unsignedXdr: string;
  txHash: string;
  expiresAt: string;
  createdVia: string | null;
  createdAt: string;
  submittedAt: string | null;
  settledAt: string | null;
  ledger: number | null;
  failureCode: string | null;
  resultCodes: string[] | null;
  endedAt: string | null;
  revision: bigint;
}

export const V1_TRANSFER_EVENTS: ReadonlySet<string> = new Set(['TransferCreated', 'TransferSubmitted', 'TransferSettled', 'TransferFailed', 'TransferCancelled']);

export const v1TransferKeyOf = (e: FoldEvent): string | null => (V1_TRANSFER_EVENTS.has(e.type) ? (e.data as { transferId: string }).transferId : null);

export const foldV1Transfer = (doc: V1TransferDoc | null, e: FoldEvent): V1TransferDoc | null => {
  if (doc !== null && e.revision <= doc.revision) return doc;
  if (e.type === 'TransferCreated') {
    if (doc) return doc;
    return { ...e.data, status: 'requires_signature', submittedAt: null, settledAt: null, ledger: null, failureCode: null, resultCodes: null, endedAt: null, revision: e.revision };
  }
  if (!doc) return doc;
  switch (e.type) {
    case 'TransferSubmitted':
      return { ...doc, status: 'submitted', submittedAt: e.data.submittedAt, revision: e.revision };
    case 'TransferSettled':
      return { ...doc, status: 'settled', ledger: e.data.ledger, settledAt: e.data.settledAt, endedAt: e.data.settledAt, revision: e.revision };
    case 'TransferFailed':
      return { ...doc, status: 'failed', ledger: e.data.ledger, failureCode: e.data.failureCode, resultCodes: e.data.resultCodes, endedAt: e.data.failedAt, revision: e.revision };
    case 'TransferCancelled':
      return { ...doc, status: 'canceled', endedAt: e.data.cancelledAt, revision: e.revision };
    default:
      return doc;
  }
};
