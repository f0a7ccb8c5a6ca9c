import nodemailer from 'nodemailer';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../logger';
import { testKnex } from '../testing/resources';
import { MailOutbox, MailWorker, type MailTransport } from './outbox';

/** nodemailer's stream transport renders the real MIME message without a network: what SMTP would carry. */
const rendering = (): MailTransport & { sent: string[] } => {
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const sent: string[] = [];
  return {
    name: 'stream',
    sent,
    async send(mail) {
      const info = await t.sendMail(mail);
      sent.push((info.message as Buffer).toString('utf8'));
    },
  };
};

const test = suite('mail outbox and worker');
const logger = createLogger('silent');

test('enqueueWhen queues the mail when asked, and otherwise runs the same statement to insert nothing', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = `${Math.random().toString(36).slice(2)}@example.test`;
  const mail = { tenantId: null, kind: 'password-reset', to, subject: 'Reset', text: 'https://x.test/r?token=abc' };
  assert.is(await outbox.enqueueWhen(false, mail), null);
  assert.is((await outbox.list({ to })).length, 0, 'a decoy leaves no row');
  const id = await outbox.enqueueWhen(true, mail);
  assert.ok(id);
  const [queued] = await outbox.list({ to });
  assert.is(queued?.id, id);
  assert.equal([queued?.kind, queued?.subject, queued?.text, queued?.sentAt], ['password-reset', 'Reset', 'https://x.test/r?token=abc', null]);
});

test('queued mail is delivered once, marked sent, and stays readable', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = `${Math.random().toString(36).slice(2)}@example.test`;
  const id = await outbox.enqueue({ tenantId: null, kind: 'password-reset', to, subject: 'Réinitialiser', text: 'Lien : https://x.test/r?token=abc' });
  const transport = rendering();
  const worker = new MailWorker(knex, transport, 'Cagnotte <no-reply@cagnotte.local>', logger);
  while ((await worker.deliverDue(100)) > 0);
  const mine = transport.sent.filter((m) => m.includes(to));
  assert.is(mine.length, 1);
  assert.match(mine[0]!, /Subject: =\?UTF-8\?Q\?R=C3=A9initialiser\?=/);
  assert.match(mine[0]!, /From: Cagnotte <no-reply@cagnotte.local>/);
  const record = await outbox.get(id);
  assert.ok(record!.sentAt);
  assert.is(record!.attempts, 1);
  const before = transport.sent.length;
  await worker.deliverDue(100);
  assert.is(transport.sent.length, before, 'nothing is sent twice');
  assert.is((await outbox.list({ to: to.toUpperCase() }))[0]!.id, id);
});

test('a failing transport keeps the message, counts the attempt and schedules a retry later', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = `${Math.random().toString(36).slice(2)}@example.test`;
  const id = await outbox.enqueue({ tenantId: null, kind: 'test', to, subject: 's', text: 't' });
  const broken: MailTransport = {
    name: 'broken',
    send: async (m) => {
      if (m.to === to) throw new Error('connection refused');
    },
  };
  await new MailWorker(knex, broken, 'a@b.test', logger).deliverDue(100);
  const record = await outbox.get(id);
  assert.equal([record!.sentAt, record!.attempts, record!.lastError], [null, 1, 'connection refused']);
  const row = await knex('mail_outbox').where({ id }).first();
  assert.ok(new Date(row.next_attempt_at).getTime() > Date.now() + 20_000, 'retried later, not at once');
});

test('two workers never send the same message', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = `${Math.random().toString(36).slice(2)}@example.test`;
  for (let i = 0; i < 10; i++) await outbox.enqueue({ tenantId: null, kind: 'test', to, subject: `m${i}`, text: 't' });
  const a = rendering();
  const b = rendering();
  const wa = new MailWorker(knex, a, 'a@b.test', logger);
  const wb = new MailWorker(knex, b, 'a@b.test', logger);
  await Promise.all([wa.deliverDue(3), wb.deliverDue(3), wa.deliverDue(3), wb.deliverDue(3), wa.deliverDue(3)]);
  const all = [...a.sent, ...b.sent].filter((m) => m.includes(to));
  assert.is(all.length, 10);
  assert.is(new Set(all.map((m) => /Subject: (m\d+)/.exec(m)![1])).size, 10);
});

test.run();
