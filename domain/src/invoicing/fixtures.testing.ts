import type { SettlementItem } from '@cagnotte/event-schemas';
import type { GoodsFacts, RoundFeeFacts } from './builders';
import type { InvoiceParty } from './model';
import type { FeeSchedule } from '@cagnotte/event-schemas';
import { vatOnFee } from '../fees/vat';
import { goodsVat, type TaxIdentity, type VatTreatment } from './vat-treatment';
import { standardVatRate } from './vat-rates';

export const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
export const SELLER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
export const BUYER_ID = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
export const R1 = '11111111-1111-4111-8111-111111111111';
export const R2 = '22222222-2222-4222-8222-222222222222';
export const TX = 'a'.repeat(64);
export const SETTLE_TX = 'b'.repeat(64);
const G = (c: string) => `G${c.repeat(55)}`;

export const fromage: InvoiceParty = { name: 'Fromagerie du Jura SAS', id: SELLER_ID, siret: '73282932000074', vatId: 'FR44732829320', address: { country: 'FR' } };
export const consumer: InvoiceParty = { name: 'Olga Organiser', id: SELLER_ID, address: { country: 'FR' } };
export const ann: InvoiceParty = { name: 'Ann Buyer', id: BUYER_ID, email: 'ann@example.org', address: { country: 'FR' } };
export const platform: InvoiceParty = { name: 'Cagnotte SAS', id: 'platform', siret: '88899900000011', vatId: 'FR12888999000', address: { line1: '1 rue de la Paix', city: 'Paris', postcode: '75002', country: 'FR' } };

export const identity = (p: InvoiceParty): TaxIdentity => ({ country: p.address.country, vatId: p.vatId ?? null });

/** The fee rule's treatment from `issuer` to `payer` with the tenant's rates (by default 20 %, no country listed). */
export const feeVat = (issuer: InvoiceParty, payer: InvoiceParty, vat: FeeSchedule['vat'] = { default: '20', byCountry: {} }): VatTreatment => {
  const { category, rate, exemption } = vatOnFee(0n, { schedule: { vat }, issuerCountry: issuer.address.country, issuerVatId: issuer.vatId ?? null, payerCountry: payer.address.country, payerVatId: payer.vatId ?? null });
  return { category, rate, exemption };
};

export const goods = (seller: InvoiceParty = fromage, o: Partial<GoodsFacts> = {}): GoodsFacts => ({
  pool: { poolId: POOL_ID, title: 'Fromages du Jura', unitLabels: new Map([['comte', 'Comté 1 kg']]) },
  seller,
  buyer: ann,
  vat: goodsVat(identity(seller), standardVatRate),
  reservationId: R1,
  lines: [{ unitId: 'comte', quantity: 2, unitPrice: '18.50' }],
  deposit: '37.0000000',
  depositTxHash: TX,
  deliveryDate: '2026-03-02',
  ...o,
});

export const item = (reservationId: string, amount: string, payouts: Array<[SettlementItem['payouts'][number]['role'], string]>): SettlementItem => ({
  ref: reservationId,
  reservationId,
  kind: 'DEPOSIT',
  balanceId: '0'.repeat(72),
  amount,
  refundTo: G('B'),
  payouts: payouts.map(([role, a]) => ({ role, destination: G(role === 'BUYER' ? 'B' : role === 'PLATFORM' ? 'P' : 'S'), amount: a })),
});

export const round = (payer: InvoiceParty, o: Partial<RoundFeeFacts> = {}): RoundFeeFacts => ({
  pool: { poolId: POOL_ID, title: 'Fromages du Jura', unitLabels: new Map() },
  issuer: platform,
  payer,
  vat: feeVat(platform, payer),
  settlementId: '33333333-3333-4333-8333-333333333333',
  round: 0,
  items: [
    item(R1, '37.00', [['SELLER', '31.20'], ['PLATFORM', '0.80'], ['BUYER', '5.00']]),
    item(R2, '32.00', [['SELLER', '31.20'], ['PLATFORM', '0.80']]),
  ],
  percent: '2.5',
  txHash: SETTLE_TX,
  settledOn: '2026-03-03',
  ...o,
});
