/**
 * The VAT facts the invoices need and nothing more: the EU-27 standard rates (to invoice goods under S at the seller's
 * tax country rate), whether a country is in the EU (to choose AE, G or S on fees), and the French VAT number derived
 * from a SIREN for a French business that gave none. docs/invoicing.md says when each applies.
 *
 * The rates are the standard rates in force on 2025-08-01 (the European Commission's "VAT rates applied in the Member
 * States"); a rate change is a code change here, reviewed like any other, since it changes what invoices say.
 */

/** ISO 3166-1 alpha-2 → standard VAT rate in percent (the Percent form: at most two decimals). */
export const EU_STANDARD_VAT_RATES: Readonly<Record<string, string>> = Object.freeze({
  AT: '20',
  BE: '21',
  BG: '20',
  CY: '19',
  CZ: '21',
  DE: '19',
  DK: '25',
  EE: '24',
  ES: '21',
  FI: '25.5',
  FR: '20',
  GR: '24',
  HR: '25',
  HU: '27',
  IE: '23',
  IT: '22',
  LT: '21',
  LU: '17',
  LV: '21',
  MT: '18',
  NL: '21',
  PL: '23',
  PT: '23',
  RO: '21',
  SE: '25',
  SI: '22',
  SK: '23',
});

/** Greece writes `EL` in front of its VAT numbers, not its ISO code: both mean the same member state here. */
const normalise = (country: string): string => {
  const upper = country.trim().toUpperCase();
  return upper === 'EL' ? 'GR' : upper;
};

/** Whether a country (ISO 3166-1 alpha-2, or `EL`) is one of the 27 EU member states. */
export const isEu = (country: string | null | undefined): boolean =>
  country != null && Object.prototype.hasOwnProperty.call(EU_STANDARD_VAT_RATES, normalise(country));

/** The standard VAT rate of an EU member state, or null outside the EU. */
export const standardVatRate = (country: string | null | undefined): string | null =>
  isEu(country) ? EU_STANDARD_VAT_RATES[normalise(country!)]! : null;

/**
 * The French intra-community VAT number of a business from its SIREN (9 digits) or SIRET (14 digits, the SIREN
 * followed by the establishment's 5): `FR` + key + SIREN with key = (12 + 3 × (SIREN mod 97)) mod 97, on two digits.
 * Spaces are ignored; anything else than 9 or 14 digits is a RangeError (never a made-up number on an invoice).
 */
export const frenchVatNumber = (siretOrSiren: string): string => {
  const digits = siretOrSiren.replace(/\s+/g, '');
  if (!/^(\d{9}|\d{14})$/.test(digits)) throw new RangeError(`not a SIREN (9 digits) or a SIRET (14 digits): ${siretOrSiren}`);
  const siren = digits.slice(0, 9);
  const key = (12n + 3n * (BigInt(siren) % 97n)) % 97n;
  return `FR${key.toString().padStart(2, '0')}${siren}`;
};
