import { accountStreamOwner, type FoldEvent } from '../shared';

/** An organiser grant (the one-time fee that makes a buyer an organiser), folded from the user's account stream. */
export interface GrantDoc {
  grantId: string;
  ownerId: string;
  tenantId: string | null;
  status: 'AWAITING_SIGNATURE' | 'SETTLED';
  ledgerAccount: string;
  destination: string;
  assetCode: string;
  assetIssuer: string;
  amount: string;
  memoHash: string;
  /** Instants as recorded in the events (the API answers them verbatim). */
  preparedAt: string;
  settledAt: string | null;
  txHash: string | null;
  /** Stream revision of the last event folded in: an event at or below it is a replay and changes nothing. */
  revision: bigint;
}

/** Which grant document an event folds into, or null when it is not a grant event of an account stream. */
export const grantKeyOf = (e: FoldEvent): string | null => {
  if (accountStreamOwner(e.streamId) === null) return null;
  return e.type === 'OrganiserGrantPrepared' || e.type === 'OrganiserGrantSettled' ? e.data.grantId : null;
};

export const foldGrant = (doc: GrantDoc | null, e: FoldEvent): GrantDoc | null => {
  const owner = accountStreamOwner(e.streamId);
  if (owner === null || (doc && (e.revision <= doc.revision || doc.ownerId !== owner))) return doc;
  switch (e.type) {
    case 'OrganiserGrantPrepared': {
      if (doc) return doc;
      const d = e.data;
      return {
        grantId: d.grantId,
        ownerId: owner,
        tenantId: e.metadata.tenantId,
        status: 'AWAITING_SIGNATURE',
        ledgerAccount: d.ledgerAccount,
        destination: d.destination,
        assetCode: d.assetCode,
        assetIssuer: d.assetIssuer,
        amount: d.amount,
        memoHash: d.memoHash,
        preparedAt: d.preparedAt,
        settledAt: null,
        txHash: null,
        revision: e.revision,
      };
    }
    case 'OrganiserGrantSettled':
      return doc ? { ...doc, status: 'SETTLED', settledAt: e.data.settledAt, txHash: e.data.txHash, revision: e.revision } : doc;
    default:
      return doc;
  }
};
