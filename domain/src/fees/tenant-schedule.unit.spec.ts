import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decideTenant, evolveTenant, initialTenant, type Tenant, type TenantEvent } from '../identity/tenant';
import { canonicalSchedule, defaultFeeSchedule } from './schedule';
import { ValidationError } from '../errors';
import { LEDGER_AMOUNT_EXCEEDED } from '../money';

const test = suite('fees: the schedule on the tenant stream');
const now = '2025-01-01T00:00:00.000Z';
const created = (): Tenant =>
  evolveTenant(initialTenant(), { type: 'TenantCreated', data: { tenantId: '7f4b2f1a-9c1e-4c3a-8f7e-0a1b2c3d4e5f', slug: 't', name: 't', whiteLabel: true, approvedOrigins: [], createdAt: now } });
const defaults = defaultFeeSchedule({ platformFeePercent: '2', listingFees: { LISTED: '5', FEATURED: '20' } });

test('given a tenant that never set one, when the default schedule is set, then nothing is recorded', () => {
  assert.equal(decideTenant({ type: 'SetFeeSchedule', data: { schedule: defaults, current: defaults }, metadata: { now } }, created()), []);
});

test('given a new schedule, then TenantFeeScheduleSet carries all of it, the fold keeps it, and setting it again records nothing', () => {
  const schedule = canonicalSchedule({ ...defaults, payment: { percent: '2.50', fixed: '0.3', min: '0.5', cap: '20' } });
  const events = decideTenant({ type: 'SetFeeSchedule', data: { schedule, current: defaults }, metadata: { now } }, created());
  assert.is(events.length, 1);
  assert.equal(events[0]!.data, { tenantId: '7f4b2f1a-9c1e-4c3a-8f7e-0a1b2c3d4e5f', schedule, setAt: now });
  const after = events.reduce((s, e) => evolveTenant(s, e as TenantEvent), created());
  assert.equal(after.status === 'created' && after.feeSchedule, schedule);
  assert.equal(decideTenant({ type: 'SetFeeSchedule', data: { schedule: canonicalSchedule({ ...schedule, payment: { ...schedule.payment, percent: '2.5' } }), current: defaults }, metadata: { now } }, after), []);
});

test('given a fee past what one ledger payment carries (922337203685.4775807), when the schedule is set, then a 400 names the field and nothing is recorded', () => {
  const over = '922337203685.48';
  const cases: Array<[string, ReturnType<typeof canonicalSchedule>]> = [
    ['organiserActivation', { ...defaults, organiserActivation: over }],
    ['listing.FEATURED', { ...defaults, listing: { ...defaults.listing, FEATURED: over } }],
    ['escrowDeposit.fixed', { ...defaults, escrowDeposit: { ...defaults.escrowDeposit, fixed: over } }],
    ['payment.min', { ...defaults, payment: { ...defaults.payment, min: over, cap: null } }],
    ['payment.cap', { ...defaults, payment: { ...defaults.payment, cap: over } }],
  ];
  for (const [field, schedule] of cases) {
    try {
      decideTenant({ type: 'SetFeeSchedule', data: { schedule, current: defaults }, metadata: { now } }, created());
      assert.unreachable(`${field}: recorded`);
    } catch (e) {
      assert.instance(e, ValidationError, field);
      assert.is((e as ValidationError).code, LEDGER_AMOUNT_EXCEEDED, field);
      assert.equal(Object.keys((e as ValidationError).errors), [field]);
    }
  }
  // At the bound it is a fee like any other.
  const atBound = { ...defaults, listing: { ...defaults.listing, FEATURED: '922337203685.47' } };
  assert.is(decideTenant({ type: 'SetFeeSchedule', data: { schedule: atBound, current: defaults }, metadata: { now } }, created()).length, 1);
});

test('canonical spelling: "2.50" is "2.5", "0.3" is "0.30", countries sorted', () => {
  const c = canonicalSchedule({ ...defaults, payment: { percent: '2.50', fixed: '0.3', min: '0', cap: null }, vat: { default: '20.00', byCountry: { FR: '20', DE: '19.0' } } });
  assert.equal(c.payment, { percent: '2.5', fixed: '0.30', min: '0.00', cap: null });
  assert.equal(Object.entries(c.vat.byCountry), [['DE', '19'], ['FR', '20']]);
  assert.is(c.vat.default, '20');
});

test.run();
