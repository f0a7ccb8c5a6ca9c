import type { DomainEvent, MandateKind } from '@cagnotte/event-schemas';
import { NotFoundError, assertNever } from '../errors';
import { requireAccount } from '../identity/account';

/**
 * A user's mandates: acceptances of the server's mandate texts (event-schemas/src/mandates/texts.ts), each
 * recorded with the text's version and sha256, and their revocations. They live in the account's stream; the
 * aggregate folds AccountRegistered to know the account exists.
 */
export type MandateEvent = Extract<DomainEvent, { type: 'AccountRegistered' | 'MandateAccepted' | 'MandateRevoked' }>;

const MANDATE_EVENT_TYPES: ReadonlySet<string> = new Set<MandateEvent['type']>(['AccountRegistered', 'MandateAccepted', 'MandateRevoked']);
export const isMandateEvent = (event: DomainEvent): event is MandateEvent => MANDATE_EVENT_TYPES.has(event.type);

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

export type Mandates = { status: 'none' } | { status: 'active'; userId: string; mandates: MandateRecord[] };

export interface MandateText {
  version: string;
  hash: string;
}

interface CommandMeta {
  now: string;
}

export type MandateCommand =
  | {
      type: 'AcceptMandate';
      data: {
        mandateId: string;
        kind: MandateKind;
        text: MandateText;
        ip: string | null;
        /**
         * Record the acceptance even when the same text stands accepted. Become-seller does (its form carries the
         * FEE acceptance and has always recorded it); `POST /api/mandates` does not, and answers the existing record.
         */
        recordAgain?: boolean;
      };
      metadata: CommandMeta;
    }
  | { type: 'RevokeMandate'; data: { mandateId: string; ip: string | null }; metadata: CommandMeta };

export const initialMandates = (): Mandates => ({ status: 'none' });

export const evolveMandates = (state: Mandates, event: MandateEvent): Mandates => {
  if (event.type === 'AccountRegistered') return { status: 'active', userId: event.data.userId, mandates: [] };
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'MandateAccepted': {
      const d = event.data;
      const record: MandateRecord = { mandateId: d.mandateId, kind: d.kind, status: 'ACCEPTED', version: d.version, hash: d.hash, acceptedAt: d.acceptedAt, acceptedIp: d.ip, revokedAt: null };
      return { ...state, mandates: [...state.mandates, record] };
    }
    case 'MandateRevoked':
      return {
        ...state,
        mandates: state.mandates.map((m) => (m.mandateId === event.data.mandateId ? { ...m, status: 'REVOKED' as const, revokedAt: event.data.revokedAt } : m)),
      };
    default:
      return assertNever(event);
  }
};

/** The standing acceptance of this text of `kind`, if any: what accepting it again answers. */
export const acceptedMandate = (state: Mandates, kind: MandateKind, text: MandateText): MandateRecord | null =>
  state.status === 'none' ? null : (state.mandates.find((m) => m.kind === kind && m.status === 'ACCEPTED' && m.version === text.version && m.hash === text.hash) ?? null);

export const findMandate = (state: Mandates, mandateId: string): MandateRecord | null =>
  state.status === 'none' ? null : (state.mandates.find((m) => m.mandateId === mandateId) ?? null);

/** Accepting the standing text again, or revoking twice, changes nothing. */
export const decideMandate = (command: MandateCommand, state: Mandates): MandateEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'AcceptMandate': {
      const account = requireAccount(state);
      const { mandateId, kind, text, ip, recordAgain } = command.data;
      if (!recordAgain && acceptedMandate(account, kind, text)) return [];
      return [{ type: 'MandateAccepted', data: { mandateId, userId: account.userId, kind, version: text.version, hash: text.hash, ip, acceptedAt: now } }];
    }
    case 'RevokeMandate': {
      // Someone else's mandate, or none, is not found: the caller never learns whether it exists.
      if (state.status === 'none') throw new NotFoundError('mandate');
      const mandate = findMandate(state, command.data.mandateId);
      if (!mandate) throw new NotFoundError('mandate');
      if (mandate.status === 'REVOKED') return [];
      return [{ type: 'MandateRevoked', data: { mandateId: mandate.mandateId, userId: state.userId, kind: mandate.kind, ip: command.data.ip, revokedAt: now } }];
    }
    default:
      return assertNever(command);
  }
};
