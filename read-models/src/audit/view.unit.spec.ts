import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { auditEventView, type StoredEvent } from './view';

const View = suite('audit: an event as a history serves it');

const SEED = `S${'A'.repeat(55)}`;
const stored = (data: unknown, metadata: unknown = { tenantId: null, actor: { kind: 'user', id: 'u-1' }, occurredAt: '2026-01-05T10:00:00+01:00' }): StoredEvent => ({
  streamId: 'pool-p',
  revision: 3n,
  position: { commit: 1234n, prepare: 56n },
  id: '00000000-0000-4000-8000-000000000001',
  type: 'PoolCreated',
  schemaVersion: 1,
  data,
  metadata,
  hash: 'h'.repeat(64),
  prevHash: 'p'.repeat(64),
  recordedAt: new Date('2026-01-05T09:00:01Z'),
});

View('the stored content, the position as "commit-prepare", the actor and time from the metadata as stored', () => {
  const v = auditEventView(stored({ poolId: 'p', config: { notes: 'hello' } }), true);
  assert.equal(
    [v.position, v.revision, v.schemaVersion, v.occurredAt, v.recordedAt, v.actor, v.data, v.verified, v.redacted],
    ['1234-56', 3, 1, '2026-01-05T10:00:00+01:00', '2026-01-05T09:00:01.000Z', { kind: 'user', id: 'u-1' }, { poolId: 'p', config: { notes: 'hello' } }, true, []],
  );
});

View('secret-shaped values of old free-form data are withheld and named; the rest stays as stored', () => {
  const data = { config: { notes: `seed ${SEED} here`, reclaimXdr: 'AAAA…', escrow: { accountId: `G${'E'.repeat(55)}`, signerSecret: 'x' }, links: [SEED] }, via: 'signedXdr' };
  const v = auditEventView(stored(data), false);
  assert.equal(v.data, { config: { notes: '[redacted]', reclaimXdr: '[redacted]', escrow: { accountId: `G${'E'.repeat(55)}`, signerSecret: '[redacted]' }, links: ['[redacted]'] }, via: 'signedXdr' });
  assert.equal(v.redacted, ['data.config.notes', 'data.config.reclaimXdr', 'data.config.escrow.signerSecret', 'data.config.links.0']);
  assert.equal(data.config.links, [SEED], 'the stored event itself is untouched');
});

View.run();
