import { randomUUID } from 'node:crypto';
import { accountAggregate, goodsVat, standardVatRate, vatIdOf, vatOnFee, type InvoiceParty, type RegisteredAccount, type TaxIdentity, type VatTreatment } from '@cagnotte/domain';
import type { FeeSchedule } from '@cagnotte/event-schemas';
import type { Config, EventStore } from '@cagnotte/infra';
import { accountStream } from '../shared/context';
import { loadState } from '../shared/run-command';

// Who the invoices name: the platform (from config), and accounts (their business persona when they have one).

export type PlatformIdentity = Pick<
  Config,
  'PLATFORM_LEGAL_NAME' | 'PLATFORM_SIRET' | 'PLATFORM_VAT_ID' | 'PLATFORM_COUNTRY' | 'PLATFORM_ADDRESS_LINE1' | 'PLATFORM_ADDRESS_POSTCODE' | 'PLATFORM_ADDRESS_CITY'
>;

export const platformParty = (c: PlatformIdentity): InvoiceParty => ({
  name: c.PLATFORM_LEGAL_NAME,
  id: 'platform',
  siret: c.PLATFORM_COUNTRY === 'FR' ? c.PLATFORM_SIRET : null,
  // The same identity closing froze the fee VAT from (command-api/src/identity/tenant.ts): no VAT id, no VAT (O).
  vatId: c.PLATFORM_VAT_ID ?? null,
  address: { line1: c.PLATFORM_ADDRESS_LINE1, postcode: c.PLATFORM_ADDRESS_POSTCODE, city: c.PLATFORM_ADDRESS_CITY, country: c.PLATFORM_COUNTRY },
});

/**
 * An account as an invoice party: a business persona names the company, its SIRET and VAT id, its tax country; a
 * person their display name and the country they registered with (else `fallbackCountry`: the pool's). Never a VAT
 * id for a person.
 */
export const accountParty = (account: RegisteredAccount, fallbackCountry: string): InvoiceParty => {
  const b = account.business;
  return {
    name: (b?.companyName ?? account.displayName) || account.email,
    id: account.userId,
    siret: b?.siret ?? null,
    vatId: vatIdOf(b),
    address: { country: b?.taxCountry ?? account.country ?? fallbackCountry },
    email: account.email,
  };
};

export const loadRegistered = async (store: EventStore, userId: string): Promise<RegisteredAccount> => {
  const account = await loadState(store, accountStream(userId), accountAggregate);
  if (account.status === 'none') throw new Error(`account ${userId} not found for an invoice`);
  return account;
};

export const taxIdentity = (p: InvoiceParty): TaxIdentity => ({ country: p.address.country, vatId: p.vatId ?? null });

/** Goods: by the seller's standing, at its tax country's standard rate (docs/invoicing.md#vat-categories). */
export const goodsVatOf = (seller: InvoiceParty): VatTreatment => goodsVat(taxIdentity(seller), standardVatRate);

/**
 * A fee or the commission from `issuer` to `payer`: the one fee rule (`vatOnFee`, docs/fees.md#vat-on-fees) with the
 * tenant's rates, the rule the fee lines and the closing ask, so an invoice carries the VAT its fee line withheld.
 */
export const feeVatOf = (schedule: Pick<FeeSchedule, 'vat'>, issuer: InvoiceParty, payer: InvoiceParty): VatTreatment => {
  const i = taxIdentity(issuer);
  const p = taxIdentity(payer);
  const { category, rate, exemption } = vatOnFee(0n, { schedule, issuerCountry: i.country, issuerVatId: i.vatId, payerCountry: p.country, payerVatId: p.vatId });
  return { category, rate, exemption };
};

export const newInvoiceId = () => randomUUID();
