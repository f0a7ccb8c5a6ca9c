import {
  commissionInvoice,
  depositFeeInvoice,
  formatAmount,
  goodsPaid,
  frozenVatTreatment,
  goodsCreditNote,
  goodsInvoice,
  mandateAggregate,
  parseAmount,
  platformFeeInvoice,
  type ExistingPool,
  type GoodsFacts,
  type InvoiceParty,
  type InvoiceRequestFacts,
  type PoolFacts,
  type PreparedSettlement,
  type RoundFeeFacts,
} from '@cagnotte/domain';
import type { EventMetadata, FeeSchedule, InvoiceSubject } from '@cagnotte/event-schemas';
import type { EventStore } from '@cagnotte/infra';
import { poolAggregate } from '../pools/aggregate';
import { accountStream, poolStream } from '../shared/context';
import { loadState, type CommandRuntime } from '../shared/run-command';
import { issueInvoice, type IssueOutcome } from './issue';
import { accountParty, feeVatOf, goodsVatOf, loadRegistered, newInvoiceId, platformParty, type PlatformIdentity } from './parties';

/** What a ReservationSettled job carries (keyed `invoice:<eventId>`): enough to find the facts on the pool's stream. */
export interface SettlementInvoiceJob {
  /** The event's tenant (null: the pool's). */
  tenantId: string | null;
  poolId: string;
  reservationId: string;
  settlementId: string;
}

export interface InvoicingDeps extends CommandRuntime {
  platform: PlatformIdentity;
  /** The tenant's fee schedule in force: its VAT rates are what every fee invoice's VAT is decided with (`feeVatOf`). */
  feeSchedule: (tenantId: string) => Promise<Pick<FeeSchedule, 'vat'>>;
  clock: () => Date;
}

const account = (id: string): InvoiceSubject => ({ kind: 'account', id });

/** The COMMISSION mandate the organiser accepted (their account stream), for the note on the commission invoice. */
const commissionMandate = async (store: EventStore, organiserId: string) => {
  const state = await loadState(store, accountStream(organiserId), mandateAggregate);
  if (state.status === 'none') return null;
  const m = [...state.mandates].reverse().find((x) => x.kind === 'COMMISSION' && x.status === 'ACCEPTED') ?? [...state.mandates].reverse().find((x) => x.kind === 'COMMISSION');
  return m ? { id: m.mandateId, acceptedAt: m.acceptedAt } : null;
};

const poolFacts = (pool: ExistingPool): PoolFacts => ({
  poolId: pool.id,
  title: pool.fields.title,
  unitLabels: new Map((pool.fields.config.units ?? []).map((u) => [u.id, u.label])),
});

/**
 * Everything a settled (released) reservation makes the service invoice, decided from the pool's stream now (the job
 * may run late, twice, or after another job of the same round): the seller's goods invoice to the buyer, its credit
 * note when part of the deposit went back, and for the round that released it the platform's fee invoice and the
 * organiser's commission invoice to the seller. Each is issued once per source (./issue.ts), so running this again
 * changes nothing.
 */
export const issueSettlementInvoices = async (deps: InvoicingDeps, job: SettlementInvoiceJob, metadata: EventMetadata): Promise<IssueOutcome[]> => {
  const { pool } = await loadState(deps.store, poolStream(job.poolId), poolAggregate);
  if (pool.status === 'none' || (job.tenantId && pool.tenantId !== job.tenantId)) return [];
  const settlement: PreparedSettlement | undefined = pool.settlement.byId.get(job.settlementId);
  const r = pool.holdings.byId.get(job.reservationId);
  const item = settlement?.items.find((i) => i.reservationId === job.reservationId && i.kind === 'DEPOSIT');
  const round = item && settlement!.rounds.find((x) => x.refs.includes(item.ref));
  const settled = round && settlement!.settledRounds.get(round.index);
  if (!settlement || !r?.payment || !item || !round || settled?.path !== 'RELEASE' || !pool.closing) return [];

  const now = deps.clock().toISOString();
  const sellerId = pool.fields.sellerId ?? pool.organiserId;
  const brokered = sellerId !== pool.organiserId;
  const country = pool.fields.country;
  const seller = accountParty(await loadRegistered(deps.store, sellerId), country);
  const buyer = accountParty(await loadRegistered(deps.store, r.buyerId), country);
  const facts = poolFacts(pool);
  const settledOn = now.slice(0, 10);
  const issue = (from: InvoiceSubject, to: InvoiceSubject, request: InvoiceRequestFacts & { corrects?: string }) =>
    issueInvoice(deps, { ...request, invoiceId: newInvoiceId(), tenantId: pool.tenantId, issuer: from, recipient: to, now }, metadata);

  const outcomes: IssueOutcome[] = [];
  const goods: GoodsFacts = {
    pool: facts,
    seller,
    buyer,
    vat: goodsVatOf(seller),
    reservationId: r.id,
    lines: r.lines,
    deposit: formatAmount(goodsPaid(r)),
    depositTxHash: r.payment.txHash,
    deliveryDate: (pool.closing.deliveredAt ?? now).slice(0, 10),
  };
  const invoice = await issue(account(sellerId), account(r.buyerId), goodsInvoice(goods));
  outcomes.push(invoice);
  const note = goodsCreditNote({
    goods,
    corrects: { invoiceId: invoice.invoice.invoiceId, number: invoice.invoice.number, issueDate: invoice.invoice.issueDate },
    finalPrices: pool.closing.finalPrices,
    item,
    settlementTxHash: settled.txHash,
    disputeReason: r.dispute && (r.dispute.status === 'REFUNDED' || r.dispute.status === 'LAPSED') ? r.dispute.reason : null,
  });
  if (note) outcomes.push(await issue(account(sellerId), account(r.buyerId), note));
  const platform = platformParty(deps.platform);
  // The tenant's fee schedule, read only when a fee's VAT is decided now (a deposit fee, a closing that froze none).
  const feeVat = async (issuer: InvoiceParty, payer: InvoiceParty) => feeVatOf(await deps.feeSchedule(pool.tenantId), issuer, payer);
  const depositFee = parseAmount(r.depositFee) > 0n && depositFeeInvoice({ pool: facts, platform, payer: buyer, vat: await feeVat(platform, buyer), reservationId: r.id, amount: r.depositFee, txHash: r.payment.txHash, paidOn: settledOn });
  if (depositFee) outcomes.push(await issue({ kind: 'platform', id: 'platform' }, account(r.buyerId), depositFee));

  // The round's fees: whichever of its reservations' jobs runs first issues them; the others find them issued.
  const roundItems = settlement.items.filter((i) => round.refs.includes(i.ref) && i.kind === 'DEPOSIT');
  const depositFees = new Map(roundItems.map((i) => [i.reservationId, parseAmount(pool.holdings.byId.get(i.reservationId)?.depositFee ?? '0')]));
  // The VAT the closing froze and the settlement withheld (PoolClosed v2); a v1 closing froze none: the fee rule decides now.
  const frozen = pool.closing.fees.vat ?? null;
  const base: Omit<RoundFeeFacts, 'issuer' | 'payer' | 'vat' | 'percent'> = { pool: facts, settlementId: settlement.settlementId, round: round.index, items: roundItems, txHash: settled.txHash, settledOn, depositFees };
  const fee = platformFeeInvoice({ ...base, issuer: platform, payer: seller, vat: frozen ? frozenVatTreatment(frozen.platformFee) : await feeVat(platform, seller), percent: pool.closing.fees.platformFeePercent });
  if (fee) outcomes.push(await issue({ kind: 'platform', id: 'platform' }, account(sellerId), fee));
  const percent = pool.closing.fees.organiserCommissionPercent;
  if (brokered && percent) {
    const organiser = accountParty(await loadRegistered(deps.store, pool.organiserId), country);
    const mandate = await commissionMandate(deps.store, pool.organiserId);
    const commission = commissionInvoice({
      ...base,
      issuer: organiser,
      payer: seller,
      vat: frozen?.commission ? frozenVatTreatment(frozen.commission) : await feeVat(organiser, seller),
      percent,
      mandate: mandate ?? { id: `pool-${pool.id}`, acceptedAt: pool.closing.closedAt },
    });
    if (commission) outcomes.push(await issue(account(pool.organiserId), account(sellerId), commission));
  }
  return outcomes;
};
