import { createHash } from 'node:crypto';
import { NotFoundError, ValidationError, evolveDeal, initialDeal, isDealEvent, readableDeal, type Deal, type DealActor, type DealEvent } from '@cagnotte/domain';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { fromPrefixedId, livemodeOf, type ApiKeyContext, type EscrowLedger, type LedgerGateway, type RouteAnswer } from '@cagnotte/infra';
import { dealView, foldDeal, type DealDoc } from '@cagnotte/read-models';
import { loadAccount } from '../shared/context';
import { loadState, type Aggregate, type CommandOutcome } from '../shared/run-command';
import type { CommandCtx, ExecuteRuntime } from '../shared/execute-command';
import type { CommandFacts } from '../shared/facts';

/** A deal's stream (published). */
export const dealStream = (dealId: string) => `deal-${dealId}`;

/** What the deal commands take. */
export interface DealDeps extends ExecuteRuntime {
  clock: () => Date;
  ledger: LedgerGateway;
  escrow: EscrowLedger;
  facts: CommandFacts;
  /** ESCROW_RECLAIM_AFTER_DAYS: the margin after a deal's hold before the buyer may reclaim alone. */
  reclaimAfterDays: number;
  /** ESCROW_RELEASE_WINDOW_HOURS: how long a prepared release stays valid before its recovery may run. */
  releaseWindowHours: number;
  /** Whether the deployment is production: a session's mode (an API key brings its own). */
  production: boolean;
}

/** A deal command's request: the kit's, with the API key that authenticated it (null with a session). */
export type DealCtx = CommandCtx & { apiKey?: ApiKeyContext | null };

/** The mode the request works in: its key's, else the deployment's (infra's livemodeOf). */
export const modeOf = (deps: Pick<DealDeps, 'production'>, ctx: DealCtx): boolean => livemodeOf(ctx, deps.production);

/** One read of the deal's stream feeds the decider's state and the read model's document (the answer's view). */
export interface DealCommandState {
  deal: Deal;
  doc: DealDoc | null;
  revision: bigint;
}

export const dealAggregate: Aggregate<DealCommandState, DealEvent> = {
  initial: () => ({ deal: initialDeal(), doc: null, revision: -1n }),
  evolve: (s, e) => ({ deal: evolveDeal(s.deal, e), doc: foldDeal(s.doc, e as DomainEvent, s.revision + 1n), revision: s.revision + 1n }),
};
export const isDealStreamEvent = (e: DomainEvent): e is DealEvent => isDealEvent(e);

/** The MEMO_HASH that binds a deposit to one deal. */
export const dealMemoHash = (dealId: string): string => createHash('sha256').update(`cagnotte:deal:${dealId}`).digest('hex');

/** The caller as a deal sees them: a session's user, or an API key's owner (a key acts as its owner). */
export const dealActorOf = (ctx: CommandCtx): DealActor => ({ userId: ctx.auth!.userId });

export const tenantOf = (ctx: CommandCtx): string => ctx.tenant?.id ?? ctx.auth!.tenantId;

/** The deal of the tenant and mode the caller works in; any other is none (404 deal_not_found, as a random id). */
export const dealIn = (deal: Deal, tenantId: string, livemode: boolean): Deal => (deal.status !== 'none' && (deal.tenantId !== tenantId || deal.livemode !== livemode) ? initialDeal() : deal);

/** `deal_…` to the deal's uuid, or a 404. */
export const dealIdOf = (id: string): string => {
  const uuid = fromPrefixedId('deal', id);
  if (!uuid) throw new NotFoundError('deal');
  return uuid;
};

/** The deal as the stream says now, readable by the caller (else 404): for what the ledger needs before a command. */
export const loadDealFor = async (deps: DealDeps, ctx: DealCtx, dealId: string) => {
  const state = await loadState(deps.store, dealStream(dealId), dealAggregate);
  return readableDeal(dealIn(state.deal, tenantOf(ctx), modeOf(deps, ctx)), dealActorOf(ctx));
};

/** A party's linked ledger account, or a 400 naming the field. */
export const ledgerAccountOf = async (deps: DealDeps, userId: string, field: string): Promise<string> => {
  const account = await loadAccount(deps.store, userId);
  const linked = account.status === 'none' ? null : account.ledgerAccount;
  if (!linked) throw new ValidationError({ [field]: ['this account has no linked ledger account'] }, 'A party has no linked ledger account', 'ledger_account_required');
  return linked;
};

/** The answer: the deal as of the command's own revision, through the view the query side serves. */
export const dealAnswer =
  (status: number, extra: (o: CommandOutcome<DealCommandState, DealEvent>) => Record<string, unknown> = () => ({})) =>
  (o: CommandOutcome<DealCommandState, DealEvent>): RouteAnswer => ({ status, data: { ...dealView(o.state.doc!), ...extra(o) } });
