import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PUBLIC_EVENT_TYPE_NAMES, enabledEventProblem } from './event-types';

const test = suite('enabledEvents entries');

test('given known types, a resource prefix or *, then they pass', () => {
  for (const entry of ['*', 'reservation.paid', 'reservation.*', 'payout.*', 'invoice.issued']) assert.is(enabledEventProblem(entry), null, entry);
});

test('given a typo, an unknown prefix or a malformed glob, then each is refused with the reason', () => {
  assert.match(enabledEventProblem('reservation.payed')!, /unknown event type 'reservation.payed'/);
  assert.match(enabledEventProblem('reservaton.*')!, /no event type starts with 'reservaton.'/);
  for (const entry of ['.*', 'reservation*', '*.paid', 'reservation.paid.*', 'RESERVATION.*', '', ' *']) assert.ok(enabledEventProblem(entry), entry);
});

test('every name is a dot type, listed once', () => {
  assert.is(new Set(PUBLIC_EVENT_TYPE_NAMES).size, PUBLIC_EVENT_TYPE_NAMES.length);
  // `<resource>.<event>`, or `<feature>.<resource>.<event>` (relais.point.unavailable): a `<prefix>.*` glob takes the first segment.
  for (const t of PUBLIC_EVENT_TYPE_NAMES) assert.match(t, /^[a-z][a-z_]*(\.[a-z_]+){1,2}$/);
  assert.is(enabledEventProblem('relais.*', ['relais.point.unavailable']), null);
});

test.run();
