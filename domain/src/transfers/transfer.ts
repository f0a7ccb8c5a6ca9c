import type { DomainEvent, EventData } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';

/**
 * A transfer (`transfer-<transferId>`): a payment of the stablecoin from an account's wallet that the service builds
 * and the account's holder signs. The service never holds the money: it only says what the ledger did with the one
 * transaction it built (docs/v1/transfers.md).
 *
 *   requires_signature ──submit──▶ submitted ──ledger──▶ settled | failed
 *          │   └──────────submit, the ledger answered at once────▶ settled | failed
 *          └──cancel──▶ canceled
 */
export type TransferEvent = Extract<DomainEvent, { type: 'TransferCreated' | 'TransferSubmitted' | 'TransferSettled' | 'TransferFailed' | 'TransferCancelled' }>;

const TRANSFER_EVENT_TYPES: ReadonlySet<string> = new Set<TransferEvent['type']>(['TransferCreated', 'TransferSubmitted', 'TransferSettled', 'TransferFailed', 'TransferCancelled']);
export const isTransferEvent = (event: DomainEvent): event is TransferEvent => TRANSFER_EVENT_TYPES.has(event.type);

export type TransferStatus = 'requires_signature' | 'submitted' | 'settled' | 'failed' | 'canceled';
export type Transfer =
  | { status: 'none' }
  | ({ status: TransferStatus } & EventData<'TransferCreated'> & { submittedAt: string | null; settledAt: string | null; ledger: number | null; failureCode: string | null });

interface CommandMeta {
  now: string;
}

/** What the ledger said of the transaction: nothing yet (null), applied, or refused / applied as failed. */
export type LedgerOutcome = null | { kind: 'settled'; ledger: number } | { kind: 'failed'; ledger: number | null; resultCodes: string[] };

export type TransferCommand =
  | { type: 'CreateTransfer'; data: Omit<EventData<'TransferCreated'>, 'createdAt'>; metadata: CommandMeta }
  /** The signed transaction (or its hash) and what the ledger answered for it. */
  | { type: 'SubmitTransfer'; data: { txHash: string; via: 'signedXdr' | 'txHash'; outcome: LedgerOutcome }; metadata: CommandMeta }
  | { type: 'CancelTransfer'; metadata: CommandMeta };

export const initialTransfer = (): Transfer => ({ status: 'none' });

export const evolveTransfer = (state: Transfer, event: TransferEvent): Transfer => {
  if (event.type === 'TransferCreated') return { status: 'requires_signature', ...event.data, submittedAt: null, settledAt: null, ledger: null, failureCode: null };
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'TransferSubmitted':
      return { ...state, status: 'submitted', submittedAt: event.data.submittedAt };
    case 'TransferSettled':
      return { ...state, status: 'settled', settledAt: event.data.settledAt, ledger: event.data.ledger };
    case 'TransferFailed':
      return { ...state, status: 'failed', ledger: event.data.ledger, failureCode: event.data.failureCode };
    case 'TransferCancelled':
      return { ...state, status: 'canceled' };
    default:
      return assertNever(event);
  }
};

export const transferAggregate = {
  initial: initialTransfer,
  evolve: (s: Transfer, e: DomainEvent): Transfer => (isTransferEvent(e) ? evolveTransfer(s, e) : s),
};

const requireTransfer = (state: Transfer): Exclude<Transfer, { status: 'none' }> => {
  if (state.status === 'none') throw new NotFoundError('transfer');
  return state;
};

/** The failure code: the first failing operation's (`op_underfunded`, `op_no_trust`…), else the transaction's (`tx_bad_seq`, `tx_too_late`…). */
const outcomeEvents = ({ transferId, livemode }: { transferId: string; livemode: boolean }, txHash: string, outcome: LedgerOutcome, now: string): TransferEvent[] => {
  if (!outcome) return [];
  if (outcome.kind === 'settled') return [{ type: 'TransferSettled', data: { transferId, livemode, txHash, ledger: outcome.ledger, settledAt: now } }];
  const failureCode = outcome.resultCodes.find((c) => c.startsWith('op_') && c !== 'op_success') ?? outcome.resultCodes[0] ?? 'tx_failed';
  return [{ type: 'TransferFailed', data: { transferId, livemode, txHash, ledger: outcome.ledger, failureCode, resultCodes: outcome.resultCodes, failedAt: now } }];
};

export const decideTransfer = (command: TransferCommand, state: Transfer): TransferEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'CreateTransfer': {
      if (state.status !== 'none') throw new ConflictError('transfer_exists', 'Transfer already exists');
      const d = command.data;
      if (!/[1-9]/.test(d.amount)) throw new ValidationError({ amount: ['must be more than 0'] });
      if (d.to.wallet === d.fromWallet) throw new ValidationError({ to: ['is the sender’s own wallet'] }, 'A transfer cannot pay its own sender', 'transfer_to_self');
      return [{ type: 'TransferCreated', data: { ...d, createdAt: now } }];
    }
    case 'SubmitTransfer': {
      const t = requireTransfer(state);
      const { txHash, via, outcome } = command.data;
      if (txHash !== t.txHash) {
        const field = via === 'signedXdr' ? 'signedXdr' : 'txHash';
        throw new ValidationError({ [field]: ['is not the transaction this transfer built (source, sequence, operation, amount, destination, memo and time bounds must be the same)'] }, 'Not this transfer’s transaction', 'transfer_transaction_mismatch');
      }
      switch (t.status) {
        case 'requires_signature':
          return [{ type: 'TransferSubmitted', data: { transferId: t.transferId, livemode: t.livemode, txHash, via, submittedAt: now } }, ...outcomeEvents(t, txHash, outcome, now)];
        case 'submitted':
          return outcomeEvents(t, txHash, outcome, now);
        case 'settled':
        case 'failed':
          // The ledger already answered: a submit again (a retry) changes nothing.
          return [];
        case 'canceled':
          throw new IllegalStateError('transfer_canceled', 'The transfer was cancelled');
        default:
          return assertNever(t.status);
      }
    }
    case 'CancelTransfer': {
      const t = requireTransfer(state);
      if (t.status === 'canceled') return [];
      if (t.status !== 'requires_signature') throw new IllegalStateError('transfer_not_cancelable', `A ${t.status} transfer cannot be cancelled`);
      return [{ type: 'TransferCancelled', data: { transferId: t.transferId, livemode: t.livemode, cancelledAt: now } }];
    }
    default:
      return assertNever(command);
  }
};
