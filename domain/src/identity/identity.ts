import type { AccountType, DomainEvent, MandateKind, Role } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError, type FieldErrors } from '../errors';

export interface TenantInput {
  tenantId: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

/** Tenants live in stream `tenant-<slug>`: the expected revision no_stream makes the slug unique. */
export const decideCreateTenant = (exists: boolean, input: TenantInput, now: string): DomainEvent[] => {
  if (exists) throw new ConflictError('tenant_exists', `Tenant ${input.slug} already exists`);
  return [{ type: 'TenantCreated', data: { ...input, approvedOrigins: [...new Set(input.approvedOrigins)], createdAt: now } }];
};

export interface AccountInput {
  userId: string;
  tenantId: string;
  email: string;
  phone: string | null;
  displayName: string;
  role: Role;
  accountType: AccountType;
  country?: string;
  timezone?: string;
  signupSource: string;
}

export const decideRegisterAccount = (exists: boolean, input: AccountInput, now: string): DomainEvent[] => {
  if (exists) throw new ConflictError('account_exists', 'Account already exists');
  return [
    {
      type: 'AccountRegistered',
      data: {
        userId: input.userId,
        tenantId: input.tenantId,
        email: input.email.trim().toLowerCase(),
        phone: input.phone,
        displayName: input.displayName,
        role: input.role,
        accountType: input.accountType,
        country: input.country ?? 'FR',
        currency: 'EUR',
        timezone: input.timezone ?? 'Europe/Paris',
        signupSource: input.signupSource,
        registeredAt: now,
      },
    },
  ];
};

export interface BusinessIdentity {
  companyName: string;
  siret: string | null;
  taxCountry: string;
  taxId: string | null;
  rccm: string | null;
}

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

export interface MandateRecord {
  mandateId: string;
  kind: MandateKind;
  status: 'ACCEPTED' | 'REVOKED';
  version: string;
  hash: string;
  acceptedAt: string;
  acceptedIp: string | null;
  revokedAt: string | null;
}

export interface Account {
  userId: string;
  tenantId: string;
  email: string;
  phone: string | null;
  displayName: string;
  role: Role;
  accountType: AccountType;
  country: string;
  currency: string;
  timezone: string;
  signupSource: string;
  registeredAt: string;
  business: BusinessIdentity | null;
  ledgerAccount: string | null;
  grants: OrganiserGrant[];
  mandates: MandateRecord[];
}

/** Folds an account's stream: registration, business identity, ledger link, organiser grants, mandates. */
export const evolveAccount = (state: Account | null, event: DomainEvent): Account | null => {
  if (event.type === 'AccountRegistered') return { ...event.data, business: null, ledgerAccount: null, grants: [], mandates: [] };
  if (!state) return state;
  switch (event.type) {
    case 'BusinessIdentityCaptured': {
      const { companyName, siret, taxCountry, taxId, rccm } = event.data;
      return { ...state, accountType: 'BUSINESS', business: { companyName, siret, taxCountry, taxId, rccm } };
    }
    case 'LedgerAccountLinked':
      return { ...state, ledgerAccount: event.data.ledgerAccount };
    case 'OrganiserGrantPrepared':
      return { ...state, grants: [...state.grants, { ...event.data, status: 'AWAITING_SIGNATURE', settledAt: null, txHash: null }] };
    case 'OrganiserGrantSettled': {
      const d = event.data;
      return {
        ...state,
        grants: state.grants.map((g) => (g.grantId === d.grantId ? { ...g, status: 'SETTLED' as const, settledAt: d.settledAt, txHash: d.txHash } : g)),
      };
    }
    case 'RoleGranted':
      return { ...state, role: event.data.role };
    case 'MandateAccepted': {
      const d = event.data;
      return {
        ...state,
        mandates: [
          ...state.mandates,
          { mandateId: d.mandateId, kind: d.kind, status: 'ACCEPTED', version: d.version, hash: d.hash, acceptedAt: d.acceptedAt, acceptedIp: d.ip, revokedAt: null },
        ],
      };
    }
    case 'MandateRevoked':
      return {
        ...state,
        mandates: state.mandates.map((m) => (m.mandateId === event.data.mandateId ? { ...m, status: 'REVOKED' as const, revokedAt: event.data.revokedAt } : m)),
      };
    default:
      return state;
  }
};

const requireAccount = (state: Account | null): Account => {
  if (!state) throw new NotFoundError('account');
  return state;
};

export interface BusinessIdentityInput {
  companyName?: string | undefined;
  siret?: string | undefined;
  taxCountry?: string | undefined;
  taxId?: string | undefined;
  rccm?: string | undefined;
}

/**
 * DAC7: a company name, plus a SIRET when the business is taxed in France (the default country), or a
 * tax country with a tax id or an RCCM number elsewhere. Answers the identity to record, or field errors.
 */
export const checkBusinessIdentity = (input: BusinessIdentityInput): { identity: BusinessIdentity } | { errors: FieldErrors } => {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const companyName = input.companyName?.trim();
  if (!companyName) add('companyName', 'companyName is required for a business account');
  const taxCountry = (input.taxCountry ?? (input.siret ? 'FR' : undefined))?.toUpperCase();
  if (!taxCountry) {
    add('siret', 'a SIRET (France) or a taxCountry with a taxId or rccm (other countries) is required');
  } else if (taxCountry === 'FR') {
    if (!input.siret) add('siret', 'a SIRET (14 digits) is required for a business taxed in France');
  } else {
    if (input.siret) add('siret', 'a SIRET applies to France only: give taxCountry FR or a taxId');
    if (!input.taxId && !input.rccm) add('taxId', `a taxId or an rccm is required for a business taxed in ${taxCountry}`);
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    identity: {
      companyName: companyName!,
      siret: taxCountry === 'FR' ? input.siret! : null,
      taxCountry: taxCountry!,
      taxId: input.taxId ?? null,
      rccm: input.rccm ?? null,
    },
  };
};

export const decideCaptureBusinessIdentity = (
  state: Account | null,
  input: BusinessIdentityInput,
  via: 'register' | 'become-seller',
  now: string,
): DomainEvent[] => {
  const account = requireAccount(state);
  if (account.accountType === 'BUSINESS' && via === 'become-seller') return [];
  const checked = checkBusinessIdentity(input);
  if ('errors' in checked) throw new ValidationError(checked.errors, 'A valid business identity is required (DAC7)', 'business_identity_invalid');
  return [{ type: 'BusinessIdentityCaptured', data: { userId: account.userId, ...checked.identity, via, capturedAt: now } }];
};

export const decideLinkLedgerAccount = (state: Account | null, ledgerAccount: string, challengeHash: string, now: string): DomainEvent[] => {
  const account = requireAccount(state);
  if (account.ledgerAccount === ledgerAccount) return [];
  return [{ type: 'LedgerAccountLinked', data: { userId: account.userId, ledgerAccount, challengeHash, linkedAt: now } }];
};

/** Become-organiser applies to pure buyers: a CONSUMER account with role `user`. */
export const canBecomeOrganiser = (account: Account): boolean => account.role === 'user';

export interface PrepareGrantInput {
  grantId: string;
  nonce: string | null;
  destination: string;
  assetCode: string;
  assetIssuer: string;
  amount: string;
  memoHash: string;
}

export type PrepareGrantOutcome = { kind: 'already_organiser' } | { kind: 'grant'; grant: OrganiserGrant; events: DomainEvent[] };

/**
 * A repeated prepare with the same nonce answers the same grant (safe retries); without a nonce an open
 * grant with the same payment terms is reused, so a user never has two payments to choose between.
 */
export const decidePrepareGrant = (state: Account | null, input: PrepareGrantInput, now: string): PrepareGrantOutcome => {
  const account = requireAccount(state);
  if (account.role === 'organiser') return { kind: 'already_organiser' };
  if (account.accountType === 'BUSINESS') {
    throw new IllegalStateError('not_a_buyer', 'Become-organiser applies to buyer (CONSUMER) accounts only');
  }
  if (!account.ledgerAccount) {
    throw new ValidationError({ ledgerAccount: ['link a ledger account first (POST /api/me/ledger/challenge, then /api/me/ledger/link)'] }, 'A linked ledger account is required', 'ledger_account_required');
  }
  const open = account.grants.find(
    (g) =>
      g.status === 'AWAITING_SIGNATURE' &&
      g.ledgerAccount === account.ledgerAccount &&
      g.destination === input.destination &&
      g.assetCode === input.assetCode &&
      g.assetIssuer === input.assetIssuer &&
      g.amount === input.amount &&
      (input.nonce === null || g.nonce === input.nonce),
  );
  if (open) return { kind: 'grant', grant: open, events: [] };
  const event: DomainEvent = {
    type: 'OrganiserGrantPrepared',
    data: { ...input, userId: account.userId, ledgerAccount: account.ledgerAccount, preparedAt: now },
  };
  const next = evolveAccount(account, event)!;
  return { kind: 'grant', grant: next.grants[next.grants.length - 1]!, events: [event] };
};

export const findGrant = (state: Account | null, grantId: string): OrganiserGrant | null => state?.grants.find((g) => g.grantId === grantId) ?? null;

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

/** Why an observed payment does not settle a grant, or null when it does. Amounts compare exactly, as strings of stroops. */
export const paymentMismatch = (grant: OrganiserGrant, p: ObservedPayment): { field: string; message: string } | null => {
  if (!p.successful) return { field: 'transaction', message: 'the transaction failed on the ledger' };
  if (p.paymentCount !== 1) return { field: 'transaction', message: 'the transaction must hold exactly one payment' };
  if (p.memoHash !== grant.memoHash) return { field: 'memo', message: 'the memo does not bind this grant' };
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

export type SettleOutcome = { kind: 'idempotent'; grant: OrganiserGrant } | { kind: 'settled'; events: DomainEvent[] };

/** Settling the grant and granting the role are one append to the account stream: both or neither. */
export const decideSettleGrant = (
  state: Account | null,
  grantId: string,
  payment: ObservedPayment,
  via: 'txHash' | 'signedXdr',
  now: string,
): SettleOutcome => {
  const account = requireAccount(state);
  const grant = findGrant(account, grantId);
  if (!grant) throw new NotFoundError('grant');
  if (grant.status === 'SETTLED') {
    if (grant.txHash === payment.txHash) return { kind: 'idempotent', grant };
    throw new IllegalStateError('grant_already_settled', 'This grant was already settled by another payment');
  }
  const mismatch = paymentMismatch(grant, payment);
  if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not settle this grant: ${mismatch.message}`, 'payment_mismatch');
  const events: DomainEvent[] = [
    { type: 'OrganiserGrantSettled', data: { grantId, userId: account.userId, txHash: payment.txHash, ledger: payment.ledger, via, settledAt: now } },
  ];
  if (account.role !== 'organiser') {
    events.push({ type: 'RoleGranted', data: { userId: account.userId, role: 'organiser', reason: 'organiser activation fee paid', grantId, grantedAt: now } });
  }
  return { kind: 'settled', events };
};

export interface MandateText {
  version: string;
  hash: string;
}

/** Accepting the current text again is a no-op that answers the existing record. */
export const decideAcceptMandate = (
  state: Account | null,
  input: { mandateId: string; kind: MandateKind; text: MandateText; ip: string | null },
  now: string,
): { mandate: MandateRecord; events: DomainEvent[] } => {
  const account = requireAccount(state);
  const existing = account.mandates.find((m) => m.kind === input.kind && m.status === 'ACCEPTED' && m.version === input.text.version && m.hash === input.text.hash);
  if (existing) return { mandate: existing, events: [] };
  const event: DomainEvent = {
    type: 'MandateAccepted',
    data: { mandateId: input.mandateId, userId: account.userId, kind: input.kind, version: input.text.version, hash: input.text.hash, ip: input.ip, acceptedAt: now },
  };
  const next = evolveAccount(account, event)!;
  return { mandate: next.mandates[next.mandates.length - 1]!, events: [event] };
};

export const decideRevokeMandate = (state: Account | null, mandateId: string, ip: string | null, now: string): { mandate: MandateRecord; events: DomainEvent[] } => {
  const account = requireAccount(state);
  const mandate = account.mandates.find((m) => m.mandateId === mandateId);
  if (!mandate) throw new NotFoundError('mandate');
  if (mandate.status === 'REVOKED') return { mandate, events: [] };
  const event: DomainEvent = { type: 'MandateRevoked', data: { mandateId, userId: account.userId, kind: mandate.kind, ip, revokedAt: now } };
  return { mandate: { ...mandate, status: 'REVOKED', revokedAt: now }, events: [event] };
};
