import type { AccountType, DomainEvent, Role } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { requireAccount } from '../identity/account';

/**
 * The organiser persona: the grants (a one-time fee paid from the linked ledger account) that make a buyer an
 * organiser. They live in the account's stream; besides its own events the aggregate folds the few account facts
 * its rules read (role, account type, linked ledger account), so it decides from its own state alone.
 */
export type OrganiserGrantEvent = Extract<
  DomainEvent,
  { type: 'AccountRegistered' | 'BusinessIdentityCaptured' | 'LedgerAccountLinked' | 'OrganiserGrantPrepared' | 'OrganiserGrantSettled' | 'RoleGranted' }
>;

const GRANT_EVENT_TYPES: ReadonlySet<string> = new Set<OrganiserGrantEvent['type']>([
  'AccountRegistered',
  'BusinessIdentityCaptured',
  'LedgerAccountLinked',
  'OrganiserGrantPrepared',
  'OrganiserGrantSettled',
  'RoleGranted',
]);
export const isOrganiserGrantEvent = (event: DomainEvent): event is OrganiserGrantEvent => GRANT_EVENT_TYPES.has(event.type);

export type GrantStatus = 'AWAITING_SIGNATURE' | 'SETTLED';

export interface OrganiserGrant {
  grantId: string;
  userId: string;
  status: GrantStatus;
  ledgerAccount: string;
  destination: string;
  assetCode: string;
  assetIssuer: string;
  amount: string;
  memoHash: string;
  nonce: string | null;
  preparedAt: string;
  settledAt: string | null;
  txHash: string | null;
}

export type OrganiserGrants =
  | { status: 'none' }
  | { status: 'active'; userId: string; role: Role; accountType: AccountType; ledgerAccount: string | null; grants: OrganiserGrant[] };

export interface PrepareGrantInput {
  grantId: string;
  nonce: string | null;
  destination: string;
  assetCode: string;
  assetIssuer: string;
  amount: string;
  memoHash: string;
}

/** The facts read off the ledger about the payment offered for a grant. */
export interface ObservedPayment {
  txHash: string;
  ledger: number;
  successful: boolean;
  /** The account that paid: the payment operation's source (or the transaction's). */
  from: string;
  to: string;
  assetCode: string | null;
  assetIssuer: string | null;
  /** 7-decimal string, as Horizon prints it. */
  amount: string;
  memoHash: string | null;
  /** How many payment-like operations the transaction holds. */
  paymentCount: number;
}

interface CommandMeta {
  now: string;
}

export type OrganiserGrantCommand =
  | { type: 'PrepareGrant'; data: PrepareGrantInput; metadata: CommandMeta }
  | { type: 'SettleGrant'; data: { grantId: string; payment: ObservedPayment; via: 'txHash' | 'signedXdr' }; metadata: CommandMeta };

export const initialOrganiserGrants = (): OrganiserGrants => ({ status: 'none' });

export const evolveOrganiserGrants = (state: OrganiserGrants, event: OrganiserGrantEvent): OrganiserGrants => {
  if (event.type === 'AccountRegistered') {
    const { userId, role, accountType } = event.data;
    return { status: 'active', userId, role, accountType, ledgerAccount: null, grants: [] };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'BusinessIdentityCaptured':
      return { ...state, accountType: 'BUSINESS' };
    case 'LedgerAccountLinked':
      return { ...state, ledgerAccount: event.data.ledgerAccount };
    case 'RoleGranted':
      return { ...state, role: event.data.role };
    case 'OrganiserGrantPrepared':
      return { ...state, grants: [...state.grants, { ...event.data, status: 'AWAITING_SIGNATURE', settledAt: null, txHash: null }] };
    case 'OrganiserGrantSettled': {
      const d = event.data;
      return { ...state, grants: state.grants.map((g) => (g.grantId === d.grantId ? { ...g, status: 'SETTLED' as const, settledAt: d.settledAt, txHash: d.txHash } : g)) };
    }
    default:
      return assertNever(event);
  }
};

export const findGrant = (state: { grants: OrganiserGrant[] } | { status: 'none' } | null, grantId: string): OrganiserGrant | null =>
  (state && 'grants' in state ? state.grants.find((g) => g.grantId === grantId) : undefined) ?? null;

/**
 * The open grant a prepare with these terms answers: with a nonce, the grant of that nonce; without one, any
 * grant still awaiting payment on the same terms, so a user never has two payments to choose between.
 */
export const openGrantFor = (state: OrganiserGrants, input: PrepareGrantInput): OrganiserGrant | null => {
  if (state.status === 'none') return null;
  return (
    state.grants.find(
      (g) =>
        g.status === 'AWAITING_SIGNATURE' &&
        g.ledgerAccount === state.ledgerAccount &&
        g.destination === input.destination &&
        g.assetCode === input.assetCode &&
        g.assetIssuer === input.assetIssuer &&
        g.amount === input.amount &&
        (input.nonce === null || g.nonce === input.nonce),
    ) ?? null
  );
};

/** Why an observed payment does not settle a grant, or null when it does. Amounts compare exactly, as strings of stroops. */
/** The payment a grant (or a paid listing) expects. */
export type ExpectedPayment = Pick<OrganiserGrant, 'ledgerAccount' | 'destination' | 'assetCode' | 'assetIssuer' | 'amount' | 'memoHash'>;

export const paymentMismatch = (grant: ExpectedPayment, p: ObservedPayment): { field: string; message: string } | null => {
  if (!p.successful) return { field: 'transaction', message: 'the transaction failed on the ledger' };
  if (p.paymentCount !== 1) return { field: 'transaction', message: 'the transaction must hold exactly one payment' };
  if (p.memoHash !== grant.memoHash) return { field: 'memo', message: 'the memo does not bind this payment to what it pays' };
  if (p.from !== grant.ledgerAccount) return { field: 'source', message: 'the payment was not made from your linked ledger account' };
  if (p.to !== grant.destination) return { field: 'destination', message: 'the payment was not made to the platform account' };
  if (p.assetCode !== grant.assetCode || p.assetIssuer !== grant.assetIssuer) {
    return { field: 'asset', message: `the payment must be in ${grant.assetCode} issued by ${grant.assetIssuer}` };
  }
  if (toStroops(p.amount) !== toStroops(grant.amount)) return { field: 'amount', message: `the amount must be exactly ${grant.amount}` };
  return null;
};

const toStroops = (amount: string): bigint | null => {
  const m = /^(\d+)(?:\.(\d{1,7}))?$/.exec(amount);
  if (!m) return null;
  return BigInt(m[1]!) * 10_000_000n + BigInt((m[2] ?? '').padEnd(7, '0'));
};

/**
 * Prepare: an organiser needs nothing (no events; the route answers alreadyOrganiser), a repeated prepare answers
 * its open grant (no events; see openGrantFor). Settle: the grant and the role in one append, both or neither;
 * the same payment again changes nothing.
 */
export const decideOrganiserGrant = (command: OrganiserGrantCommand, state: OrganiserGrants): OrganiserGrantEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'PrepareGrant': {
      const account = requireAccount(state);
      if (account.role === 'organiser') return [];
      if (account.accountType === 'BUSINESS') throw new IllegalStateError('not_a_buyer', 'Become-organiser applies to buyer (CONSUMER) accounts only');
      if (!account.ledgerAccount) {
        throw new ValidationError({ ledgerAccount: ['link a ledger account first (POST /api/me/ledger/challenge, then /api/me/ledger/link)'] }, 'A linked ledger account is required', 'ledger_account_required');
      }
      if (openGrantFor(account, command.data)) return [];
      return [{ type: 'OrganiserGrantPrepared', data: { ...command.data, userId: account.userId, ledgerAccount: account.ledgerAccount, preparedAt: now } }];
    }
    case 'SettleGrant': {
      const account = requireAccount(state);
      const { grantId, payment, via } = command.data;
      const grant = findGrant(account, grantId);
      if (!grant) throw new NotFoundError('grant');
      if (grant.status === 'SETTLED') {
        if (grant.txHash === payment.txHash) return [];
        throw new IllegalStateError('grant_already_settled', 'This grant was already settled by another payment');
      }
      const mismatch = paymentMismatch(grant, payment);
      if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not settle this grant: ${mismatch.message}`, 'payment_mismatch');
      const events: OrganiserGrantEvent[] = [
        { type: 'OrganiserGrantSettled', data: { grantId, userId: account.userId, txHash: payment.txHash, ledger: payment.ledger, via, settledAt: now } },
      ];
      if (account.role !== 'organiser') {
        events.push({ type: 'RoleGranted', data: { userId: account.userId, role: 'organiser', reason: 'organiser activation fee paid', grantId, grantedAt: now } });
      }
      return events;
    }
    default:
      return assertNever(command);
  }
};
