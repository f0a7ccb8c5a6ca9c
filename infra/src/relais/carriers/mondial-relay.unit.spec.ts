import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closedOn } from '@cagnotte/event-schemas';
import { WSI4_PARAMS, mondialRelaySecurity } from './mondial-relay';
import { slotsFromRanges } from './wire';

const test = suite('relais carriers: Mondial Relay security key, opening hours');

test('given WSI4 parameters and a private key, when signed, then Security is the upper-case MD5 of the values in schema order then the key', () => {
  // The documented rule, by hand: Enseigne, Pays, NumPointRelais, Ville, CP, Latitude, Longitude, Taille, Poids, Action,
  // DelaiEnvoi, RayonRecherche, TypeActivite, NACE, NombreResultats, then the private key; empty parameters add nothing.
  const concatenated = 'BDTEST13' + 'FR' + '' + '' + '69001' + '' + '' + '' + '2500' + '24R' + '' + '10' + '' + '' + '10' + 'PrivateK';
  assert.is(concatenated, 'BDTEST13FR69001250024R1010PrivateK');
  const byHand = createHash('md5').update(concatenated).digest('hex').toUpperCase();
  assert.is(byHand, '9E53F497C87115F0150AA4178189DA0B', 'the known vector');
  const signed = mondialRelaySecurity({ Enseigne: 'BDTEST13', Pays: 'FR', CP: '69001', Poids: '2500', Action: '24R', RayonRecherche: '10', NombreResultats: '10' }, 'PrivateK');
  assert.is(signed, '9E53F497C87115F0150AA4178189DA0B');
  assert.match(signed, /^[0-9A-F]{32}$/);
});

test('given a look-up by point number, when signed, then NumPointRelais takes its place after Pays', () => {
  assert.is(mondialRelaySecurity({ Enseigne: 'BDTEST13', Pays: 'FR', NumPointRelais: '066974' }, 'PrivateK'), '0AC8A76660B436AB7A1524142FA99A70');
  // Order matters: Ville comes before CP in the schema ('BDTEST13FRLYON69001PrivateK', not '…FR69001LYON…').
  assert.is(mondialRelaySecurity({ Enseigne: 'BDTEST13', Pays: 'FR', CP: '69001', Ville: 'LYON' }, 'PrivateK'), 'F137BB8A478173C6B6810F79CC00D57B');
  assert.is.not(mondialRelaySecurity({ Enseigne: 'BDTEST13', Pays: 'FR', CP: '69001', Ville: 'LYON' }, 'PrivateK'), 'CDE21A57D93727AD10C25EB6475227B8');
  assert.equal(WSI4_PARAMS.slice(0, 3), ['Enseigne', 'Pays', 'NumPointRelais']);
  assert.is(WSI4_PARAMS.at(-1), 'NombreResultats');
});

test('given carriers’ opening strings, when parsed, then closed pairs are dropped and slots kept in order', () => {
  assert.equal(slotsFromRanges('08:30-12:00 14:00-18:30'), [{ open: '08:30', close: '12:00' }, { open: '14:00', close: '18:30' }]);
  assert.equal(slotsFromRanges('09:00-12:00 00:00-00:00'), [{ open: '09:00', close: '12:00' }]);
  assert.equal(slotsFromRanges('00:00-00:00 00:00-00:00'), []);
  assert.equal(slotsFromRanges('00:00-24:00'), [{ open: '00:00', close: '23:59' }]);
  const point = { status: 'active' as const, closures: [], openingHours: { '1': slotsFromRanges('09:00-12:00') } };
  assert.is(closedOn(point, '2026-11-30'), false, 'a Monday');
  assert.is(closedOn(point, '2026-12-01'), true, 'a Tuesday without hours');
});

test.run();
