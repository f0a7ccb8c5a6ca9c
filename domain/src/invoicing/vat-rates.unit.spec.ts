import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EU_STANDARD_VAT_RATES, frenchVatNumber, isEu, standardVatRate } from './vat-rates';

const rates = suite('invoicing: EU VAT rates');

rates('the table holds the 27 member states, each with a rate in the Percent form', () => {
  assert.is(Object.keys(EU_STANDARD_VAT_RATES).length, 27);
  for (const [country, rate] of Object.entries(EU_STANDARD_VAT_RATES)) {
    assert.match(country, /^[A-Z]{2}$/);
    assert.match(rate, /^\d{2}(\.\d{1,2})?$/, country);
  }
  assert.is(standardVatRate('FR'), '20');
  assert.is(standardVatRate('DE'), '19');
  assert.is(standardVatRate('FI'), '25.5');
});

rates('given a country, isEu answers for member states only (EL is Greece, case does not matter)', () => {
  for (const c of ['FR', 'de', 'BE', 'GR', 'EL', 'IE']) assert.ok(isEu(c), c);
  for (const c of ['GB', 'CH', 'NO', 'US', 'XX', '', null, undefined]) assert.not.ok(isEu(c), String(c));
  assert.is(standardVatRate('CH'), null);
  assert.is(standardVatRate('EL'), '24');
});

rates.run();

const vat = suite('invoicing: the French VAT number from a SIREN');

vat('given a SIREN, when derived, then it is FR + (12 + 3 × (SIREN mod 97)) mod 97 + SIREN', () => {
  // Published VAT numbers of French companies (the VIES register).
  assert.is(frenchVatNumber('404833048'), 'FR83404833048');
  assert.is(frenchVatNumber('552081317'), 'FR03552081317'); // a key below 10 keeps its leading zero
  assert.is(frenchVatNumber('542 107 651'), 'FR13542107651');
});

vat('given a SIRET, when derived, then only its SIREN (first 9 digits) counts', () => {
  assert.is(frenchVatNumber('40483304800022'), 'FR83404833048');
});

vat('given anything else, it throws rather than invent a number', () => {
  for (const bad of ['', '12345678', '1234567890', 'FR83404833048', '4048330480002']) assert.throws(() => frenchVatNumber(bad), RangeError, bad);
});

vat.run();
