import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError } from '../errors';
import { decideFirstTouch, decidePilotRequest, evolveLead, evolveVisitor, firstTouchOf, initialLead, initialVisitor } from './lead';

const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const LEAD_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const T0 = '2025-03-01T08:00:00.000Z';

const test = suite('domain/catalogue: visitor first touch and lead');

test('a visitor records its first touch once; its later leads carry that first touch', () => {
  const first = decideFirstTouch({ tenantId: TENANT_ID, visitorId: 'visitor-1', attribution: { utm_source: 'news' }, touchedAt: T0 }, initialVisitor());
  assert.is(first.length, 1);
  const touched = first.reduce(evolveVisitor, initialVisitor());
  assert.equal(decideFirstTouch({ tenantId: TENANT_ID, visitorId: 'visitor-1', attribution: { utm_source: 'ads' }, touchedAt: T0 }, touched), []);
  assert.equal(firstTouchOf(touched, { utm_source: 'ads' }), { utm_source: 'news' });
  assert.equal(firstTouchOf(initialVisitor(), { utm_source: 'ads' }), { utm_source: 'ads' });
});

test('a lead is requested once', () => {
  const data = {
    leadId: LEAD_ID,
    tenantId: TENANT_ID,
    visitorId: 'visitor-1',
    contactName: 'Ada',
    email: 'ada@example.com',
    phone: null,
    company: 'Acme',
    role: null,
    volume: '<100',
    message: 'Hello',
    consentAt: T0,
    attribution: {},
    requestedAt: T0,
  };
  const events = decidePilotRequest(data, initialLead());
  assert.equal(events, [{ type: 'PilotRequested', data }]);
  assert.throws(() => decidePilotRequest(data, events.reduce(evolveLead, initialLead())), (e: unknown) => e instanceof ConflictError);
});

test.run();
