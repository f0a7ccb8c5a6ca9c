import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnavailableError, ValidationError } from '@cagnotte/domain';
import { InMemoryRelaisDirectory, relaisPointFixture } from './directory.testing';
import { PoolConfigInput, openingHoursSummary, resolvePoolConfig } from './pool-config';

const test = suite('relais: a pool config’s pick-up points');
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';

test('opening hours read as one line: days alike grouped, closed days left out, none: absent', () => {
  const am = [{ open: '09:00', close: '12:00' }];
  const split = [...am, { open: '14:00', close: '19:00' }];
  assert.is(openingHoursSummary({ '1': split, '2': split, '3': split, '4': split, '5': split, '6': am }), 'Mon–Fri 09:00–12:00, 14:00–19:00; Sat 09:00–12:00');
  assert.is(openingHoursSummary({ '1': am, '3': am, '7': split }), 'Mon 09:00–12:00; Wed 09:00–12:00; Sun 09:00–12:00, 14:00–19:00');
  assert.is(openingHoursSummary({}), undefined);
});

test('given inline points only, then the directory is never asked and the config is kept as sent', async () => {
  const config = PoolConfigInput.parse({ relais: [{ id: 'r1', name: 'Épicerie' }], minimumUnits: 3 });
  assert.equal(await resolvePoolConfig(() => assert.unreachable('asked') as never, TENANT, config), { relais: [{ id: 'r1', name: 'Épicerie' }], minimumUnits: 3 });
  assert.equal(await resolvePoolConfig(undefined, TENANT, PoolConfigInput.parse({})), {});
});

test('given directory ids, then each is replaced by its snapshot, in place, and the same id is asked once', async () => {
  const directory = new InMemoryRelaisDirectory([relaisPointFixture('sandbox:SBX-001'), relaisPointFixture('community:h1', { kind: 'community_host', name: 'Chez Paul' })]);
  const config = PoolConfigInput.parse({ relais: ['sandbox:SBX-001', { id: 'mine', name: 'Moi' }, { id: 'community:h1', name: 'ignored' }] });
  const out = await resolvePoolConfig(() => directory, TENANT, config);
  assert.equal(out.relais!.map((r) => [r.id, r.name]), [['sandbox:SBX-001', 'Relais SBX-001'], ['mine', 'Moi'], ['community:h1', 'Chez Paul']]);
  assert.equal(directory.resolved, [{ ids: ['sandbox:SBX-001', 'community:h1'], tenantId: TENANT, fresh: true }]);
});

test('given unusable points, then a 400 names each entry; a network down is a 503; an inline point without a name is a 400', async () => {
  const directory = new InMemoryRelaisDirectory([relaisPointFixture('sandbox:SBX-LIGHT', { maxWeightG: 1000 }), relaisPointFixture('sandbox:SBX-CLOSED', { status: 'temporarily_closed' })]);
  const refused = await resolvePoolConfig(() => directory, TENANT, PoolConfigInput.parse({ relais: ['sandbox:SBX-LIGHT', 'sandbox:SBX-CLOSED', 'inpost:NOPE'], parcelWeightG: 1001 })).catch((e) => e);
  assert.instance(refused, ValidationError);
  assert.equal(Object.keys((refused as ValidationError).errors), ['config.relais.0.id', 'config.relais.1.id', 'config.relais.2.id']);
  assert.ok(await resolvePoolConfig(() => directory, TENANT, PoolConfigInput.parse({ relais: ['sandbox:SBX-LIGHT'], parcelWeightG: 1000 })), 'exactly the limit');
  directory.failing.add('sandbox');
  const down = await resolvePoolConfig(() => directory, TENANT, PoolConfigInput.parse({ relais: ['sandbox:SBX-LIGHT'] })).catch((e) => e);
  assert.instance(down, UnavailableError);
  assert.is((down as UnavailableError).code, 'relais_unavailable');
  const nameless = await resolvePoolConfig(() => directory, TENANT, PoolConfigInput.parse({ relais: ['mine'] })).catch((e) => e);
  assert.equal((nameless as ValidationError).errors, { 'config.relais.0.name': ['an inline pick-up point needs a name (or give a directory id <network>:<pointId>)'] });
});

test.run();
