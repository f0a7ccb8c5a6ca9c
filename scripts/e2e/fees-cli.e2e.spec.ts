import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli as cli } from './harness';

const test = suite('operator CLI: tenant fees');
const slug = `fees-${randomUUID().slice(0, 8)}`;

test('tenant fees prints the default schedule, sets parts of it once, and refuses what the schema refuses', async () => {
  assert.is((await cli('tenant', 'create', slug)).code, 0);
  const shown = await cli('tenant', 'fees', slug);
  assert.is(shown.code, 0, shown.err);
  const before = JSON.parse(shown.out);
  assert.is(before.default, true);
  assert.is(before.recorded, false);
  assert.equal(before.schedule.payment.fixed, '0');
  assert.is(before.schedule.payment.cap, null);
  assert.is(before.schedule.organiserActivation, '1');

  const set = await cli('tenant', 'fees', slug, '--payment-percent', '2.50', '--payment-fixed', '0.30', '--payment-min', '0.50', '--payment-cap', '20', '--listing-listed', '5', '--listing-featured', '15', '--vat-default', '20', '--vat', 'FR=20', '--vat', 'DE=19');
  assert.is(set.code, 0, set.err);
  const after = JSON.parse(set.out);
  assert.equal(after.schedule.payment, { percent: '2.5', fixed: '0.30', min: '0.50', cap: '20.00' });
  assert.equal(after.schedule.listing, { LISTED: '5.00', FEATURED: '15.00' });
  assert.equal(after.schedule.vat, { default: '20', byCountry: { DE: '19', FR: '20' } });
  assert.is(after.default, false);
  assert.is(after.recorded, true);

  const again = await cli('tenant', 'fees', slug, '--payment-percent', '2.5', '--vat', 'DE=19');
  assert.is(again.code, 0, again.err);
  assert.is(JSON.parse(again.out).recorded, false, 'the same values again record nothing');
  assert.equal(JSON.parse(again.out).schedule, after.schedule);

  const drop = await cli('tenant', 'fees', slug, '--vat', 'DE=none', '--payment-cap', 'none');
  assert.equal([JSON.parse(drop.out).schedule.vat.byCountry, JSON.parse(drop.out).schedule.payment.cap], [{ FR: '20' }, null]);

  assert.is((await cli('tenant', 'fees', slug, '--payment-percent', '101')).code, 2, 'a percentage above 100');
  assert.is((await cli('tenant', 'fees', slug, '--payment-percent', '2.555')).code, 2, 'three decimals');
  assert.is((await cli('tenant', 'fees', slug, '--vat', 'france=20')).code, 2, 'not an ISO2 code');
  assert.is((await cli('tenant', 'fees', slug, '--payment-min', '5', '--payment-cap', '1')).code, 2, 'a cap below the minimum');
  assert.is((await cli('tenant', 'fees')).code, 2);
  assert.is((await cli('tenant', 'fees', `nope-${randomUUID().slice(0, 6)}`)).code, 1, 'no such tenant');

  const verify = await cli('events', 'verify', `tenant-${slug}`);
  assert.is(JSON.parse(verify.out).broken, 0);
});

test.run();
