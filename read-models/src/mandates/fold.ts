import type { MandateKind } from '@cagnotte/event-schemas';
import { accountStreamOwner, type FoldEvent } from '../shared';

/**
 * One mandate of one user, as GET /api/mandates lists it: folded from the MandateAccepted / MandateRevoked
 * events of the user's account stream. A pool stream also records COMMISSION acceptances (in the pool's own
 * history); those are not the user's mandates list and are not folded here.
 */
export interface MandateDoc {
  mandateId: string;
  ownerId: string;
  tenantId: string | null;
  kind: MandateKind;
  status: 'ACCEPTED' | 'REVOKED';
  version: string;
  hash: string;
  /** Instants as recorded in the events (the API answers them verbatim). */
  acceptedAt: string;
  acceptedIp: string | null;
  /** Stream revision of the acceptance: the user's mandates are listed newest first by it. */
  acceptedRevision: bigint;
  revokedAt: string | null;
  revokedIp: string | null;
  /** Stream revision of the last event folded in: an event at or below it is a replay and changes nothing. */
  revision: bigint;
}

/** Which mandate document an event folds into, or null when it is not a mandate event of an account stream. */
export const mandateKeyOf = (e: FoldEvent): string | null => {
  if (accountStreamOwner(e.streamId) === null) return null;
  return e.type === 'MandateAccepted' || e.type === 'MandateRevoked' ? e.data.mandateId : null;
};

export const foldMandate = (doc: MandateDoc | null, e: FoldEvent): MandateDoc | null => {
  const owner = accountStreamOwner(e.streamId);
  if (owner === null || (doc && (e.revision <= doc.revision || doc.ownerId !== owner))) return doc;
  switch (e.type) {
    case 'MandateAccepted': {
      if (doc) return doc;
      const d = e.data;
      return {
        mandateId: d.mandateId,
        ownerId: owner,
        tenantId: e.metadata.tenantId,
        kind: d.kind,
        status: 'ACCEPTED',
        version: d.version,
        hash: d.hash,
        acceptedAt: d.acceptedAt,
        acceptedIp: d.ip,
        acceptedRevision: e.revision,
        revokedAt: null,
        revokedIp: null,
        revision: e.revision,
      };
    }
    case 'MandateRevoked':
      // A revocation of a mandate this user never accepted has nothing to change.
      return doc ? { ...doc, status: 'REVOKED', revokedAt: e.data.revokedAt, revokedIp: e.data.ip, revision: e.revision } : doc;
    default:
      return doc;
  }
};
