import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnavailableError } from '@cagnotte/domain';
import { isDatabaseOutage, lookupOrUnavailable } from './outage';

const outage = suite('database outage: what counts, and what a lookup answers');

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

outage('connection failures and server shutdowns are outages', () => {
  for (const e of [
    withCode('ECONNREFUSED'),
    withCode('ECONNRESET'),
    withCode('57P01', 'terminating connection due to administrator command'),
    withCode('08006'),
    withCode('53300', 'sorry, too many clients already'),
    new Error('Connection terminated unexpectedly'),
    Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
    new AggregateError([withCode('ECONNREFUSED')], ''),
  ]) {
    assert.ok(isDatabaseOutage(e), String((e as Error).message || (e as { code?: string }).code));
  }
});

outage('errors the database answered with are not outages', () => {
  for (const e of [withCode('42601', 'syntax error'), withCode('23505', 'duplicate key'), withCode('22P02', 'invalid input syntax for type uuid'), new TypeError('x'), null, 'ECONNREFUSED']) {
    assert.not.ok(isDatabaseOutage(e), JSON.stringify(String(e)));
  }
});

outage('lookupOrUnavailable: an outage becomes service_unavailable (503), anything else is rethrown as is', async () => {
  try {
    await lookupOrUnavailable(() => Promise.reject(withCode('ECONNREFUSED')));
    assert.unreachable('expected a throw');
  } catch (e) {
    assert.instance(e, UnavailableError);
    assert.is((e as UnavailableError).code, 'service_unavailable');
  }
  const bug = withCode('42601', 'syntax error');
  try {
    await lookupOrUnavailable(() => Promise.reject(bug));
    assert.unreachable('expected a throw');
  } catch (e) {
    assert.is(e, bug);
  }
  assert.is(await lookupOrUnavailable(async () => 7), 7);
});

outage.run();
