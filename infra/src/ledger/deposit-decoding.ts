import type { Transaction } from '@stellar/stellar-sdk';
import type { ObservedDeposit } from '@cagnotte/domain';
import { memoHashOf } from './gateway';

const balanceIdOf = (tx: Transaction): string | null => {
  try {
    return tx.getClaimableBalanceId(0);
  } catch {
    return null;
  }
};

/**
 * A claim predicate as the SDK decodes it: a plain object `{type, absBefore?, notPredicate?}` (SDK 17), or an XDR
 * union (`switch()`, `absBefore()`, `notPredicate()`) in older versions. Both are read.
 */
type DecodedPredicate = Record<string, unknown>;

const field = (p: DecodedPredicate, name: string): unknown => (typeof p[name] === 'function' ? (p[name] as () => unknown).call(p) : p[name]);
const kindOf = (p: DecodedPredicate): string =>
  typeof p.switch === 'function' ? (p.switch as () => { name: string }).call(p).name : String(p.type ?? '');

const predicateOf = (p: DecodedPredicate): ObservedDeposit['claimants'][number]['predicate'] => {
  const kind = kindOf(p);
  if (kind === 'claimPredicateBeforeAbsoluteTime') return { before: Number(String(field(p, 'absBefore'))) };
  if (kind === 'claimPredicateNot') {
    const inner = field(p, 'notPredicate') as DecodedPredicate | null | undefined;
    if (inner && kindOf(inner) === 'claimPredicateBeforeAbsoluteTime') return { notBefore: Number(String(field(inner, 'absBefore'))) };
  }
  return 'other';
};

export interface DepositFacts {
  txHash: string;
  ledger: number;
  successful: boolean;
  closedAt: string | null;
}

/** What a transaction does, as far as a deposit is concerned (depositMismatch checks it against the reservation). */
export const describeDeposit = (tx: Transaction, facts: DepositFacts): ObservedDeposit => {
  const op = tx.operations[0];
  const memoHash = memoHashOf(tx);
  const cb = op?.type === 'createClaimableBalance' ? op : null;
  const balanceId = cb ? balanceIdOf(tx) : null;
  return {
    ...facts,
    from: op?.source ?? tx.source,
    operationCount: tx.operations.length,
    isClaimableBalance: cb !== null,
    assetCode: cb ? (cb.asset.isNative() ? 'XLM' : cb.asset.getCode()) : null,
    assetIssuer: cb && !cb.asset.isNative() ? (cb.asset.getIssuer() ?? null) : null,
    amount: cb?.amount ?? '0',
    memoHash,
    balanceId,
    claimants: cb ? cb.claimants.map((c) => ({ destination: c.destination, predicate: predicateOf(c.predicate as unknown as DecodedPredicate) })) : [],
  };
};
