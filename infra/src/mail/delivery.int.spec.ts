import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../logger';
import { BullJobQueue } from '../jobs/bullmq';
import { JOB_QUEUES, type JobQueue } from '../jobs/port';
import { startFakeSmtp } from '../testing/fake-smtp';
import { onTestTeardown, testKnex } from '../testing/resources';
import { MailOutbox } from './outbox';
import { MailRelay, MailSender, runMailDelivery, smtpTransport, startMailDelivery, type MailDeliveryDeps, type MailTransport } from './delivery';

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

const test = suite('mail outbox, relay and mail jobs');
const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
};

/** A job queue as one process would have it; `prefix` shared by two "processes" makes them one deployment. */
const newJobs = (prefix: string, o: { attempts?: number; retryBaseMs?: number } = {}): JobQueue => {
  const jobs = new BullJobQueue({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15', keyPrefix: prefix, logger, attempts: o.attempts ?? 3, retryBaseMs: o.retryBaseMs ?? 20 });
  onTestTeardown(() => jobs.close());
  return jobs;
};
const freshPrefix = () => `${process.env.REDIS_KEY_PREFIX ?? 'test:'}mail-${randomUUID().slice(0, 8)}:`;

const deps = (jobs: JobQueue, o: { smtpUrl?: string; attempts?: number; retryBaseMs?: number } = {}): MailDeliveryDeps => ({
  knex: testKnex(),
  jobs,
  logger,
  config: {
    SMTP_URL: o.smtpUrl,
    MAIL_FROM: 'Cagnotte <no-reply@cagnotte.local>',
    APP_ENV: 'sandbox',
    JOBS_ATTEMPTS: o.attempts ?? 3,
    JOBS_RETRY_BASE_MS: o.retryBaseMs ?? 20,
    MAIL_WORKER_CONCURRENCY: 4,
  },
});
const newAddress = () => `${Math.random().toString(36).slice(2)}@example.test`;

test('enqueueWhen queues the mail when asked, and otherwise runs the same statement to insert nothing', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = newAddress();
  const mail = { tenantId: null, kind: 'password-reset', to, subject: 'Reset', text: 'https://x.test/r?token=abc' };
  assert.is(await outbox.enqueueWhen(false, mail), null);
  assert.is((await outbox.list({ to })).length, 0, 'a decoy leaves no row');
  const id = await outbox.enqueueWhen(true, mail);
  assert.ok(id);
  const [queued] = await outbox.list({ to });
  assert.is(queued?.id, id);
  assert.equal([queued?.kind, queued?.subject, queued?.text, queued?.sentAt], ['password-reset', 'Reset', 'https://x.test/r?token=abc', null]);
});

test('without SMTP_URL nothing is delivered: mail stays in the outbox for `pnpm cli mail list`', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = newAddress();
  const id = await outbox.enqueue({ tenantId: null, kind: 'test', to, subject: 's', text: 't' });
  const stop = startMailDelivery(deps(newJobs(freshPrefix())));
  await sleep(200);
  await stop();
  const record = await outbox.get(id);
  assert.equal([record!.sentAt, record!.attempts], [null, 0]);
});

test('queued mail goes outbox → job → SMTP once, is marked sent, and stays readable; a redelivered job sends nothing', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const smtp = await startFakeSmtp();
  onTestTeardown(() => smtp.close());
  const jobs = newJobs(freshPrefix());
  const to = newAddress();
  const id = await outbox.enqueue({ tenantId: null, kind: 'password-reset', to, subject: 'Réinitialiser', text: 'Lien : https://x.test/r?token=abc' });
  const stop = runMailDelivery(deps(jobs), smtpTransport(smtp.url), { intervalMs: 50 });
  await until('the mail is sent', async () => Boolean((await outbox.get(id))?.sentAt));
  const mine = smtp.messages.filter((m) => m.includes(to));
  assert.is(mine.length, 1);
  assert.match(mine[0]!, /Subject: =\?UTF-8\?Q\?R=C3=A9initialiser\?=/);
  assert.match(mine[0]!, /From: Cagnotte <no-reply@cagnotte.local>/);
  const record = await outbox.get(id);
  assert.is(record!.attempts, 1);
  assert.ok((await knex('mail_outbox').where({ id }).first()).handed_over_at, 'handed over to the queue');
  // The same key again (a second relay, a relay crashed before marking): the queue keeps the completed id.
  await jobs.enqueue(JOB_QUEUES.mail, id, { id });
  await sleep(300);
  // And the handler itself: a job for a row already sent sends nothing.
  const sender = new MailSender(knex, { name: 'must-not-send', send: () => Promise.reject(new Error('sent twice')) }, 'a@b.test', logger, 20);
  assert.is(await sender.deliver(id), 'already-sent');
  await stop();
  assert.is(smtp.messages.filter((m) => m.includes(to)).length, 1, 'nothing is sent twice');
  assert.is((await outbox.list({ to: to.toUpperCase() }))[0]!.id, id);
});

test('SMTP is sent outside any database transaction: the row is not locked while the SMTP server holds DATA', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const smtp = await startFakeSmtp();
  onTestTeardown(() => smtp.close());
  const to = newAddress();
  const id = await outbox.enqueue({ tenantId: null, kind: 'test', to, subject: 'slow', text: 't' });
  const reached = smtp.hold();
  const stop = runMailDelivery(deps(newJobs(freshPrefix())), smtpTransport(smtp.url), { intervalMs: 50 });
  await reached;
  // While the SMTP exchange is in flight, another session can lock the row at once (NOWAIT fails on a held lock).
  const locked = await knex.transaction(async (trx) => (await trx.raw('SELECT id FROM mail_outbox WHERE id = ? FOR UPDATE NOWAIT', [id])).rows);
  assert.equal(locked, [{ id }]);
  const open = await knex.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND query ILIKE '%mail_outbox%'`);
  assert.is(open.rows[0].n, 0, 'no session sits in a transaction on the outbox');
  smtp.release();
  await until('the mail is sent', async () => Boolean((await outbox.get(id))?.sentAt));
  await stop();
});

test('a failing transport keeps the message, counts the attempt and schedules a retry later', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = newAddress();
  const id = await outbox.enqueue({ tenantId: null, kind: 'test', to, subject: 's', text: 't' });
  const broken: MailTransport = {
    name: 'broken',
    send: async (m) => {
      if (m.to === to) throw new Error('connection refused');
    },
  };
  const jobs = newJobs(freshPrefix(), { retryBaseMs: 30_000 });
  const stop = runMailDelivery(deps(jobs, { retryBaseMs: 30_000 }), broken, { intervalMs: 50 });
  await until('the attempt is counted', async () => (await outbox.get(id))?.attempts === 1);
  const record = await outbox.get(id);
  assert.equal([record!.sentAt, record!.attempts, record!.lastError], [null, 1, 'connection refused']);
  const row = await knex('mail_outbox').where({ id }).first();
  assert.ok(new Date(row.next_attempt_at).getTime() > Date.now() + 20_000, 'retried later, not at once');
  await until('the retry waits as a delayed job', async () => ((await jobs.counts()).mail?.delayed ?? 0) >= 1);
  await stop();
});

test('a mail that fails is retried with backoff; one that fails every attempt stays failed and is not handed over again', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const flakyTo = newAddress();
  const deadTo = newAddress();
  let flakyFailures = 0;
  const transport = rendering();
  const flaky: MailTransport = {
    name: 'flaky',
    send: async (m) => {
      if (m.to === deadTo) throw new Error('mailbox unavailable');
      if (m.to === flakyTo && flakyFailures++ === 0) throw new Error('try again');
      await transport.send(m);
    },
  };
  const flakyId = await outbox.enqueue({ tenantId: null, kind: 'test', to: flakyTo, subject: 's', text: 't' });
  const deadId = await outbox.enqueue({ tenantId: null, kind: 'test', to: deadTo, subject: 's', text: 't' });
  const jobs = newJobs(freshPrefix(), { attempts: 2, retryBaseMs: 20 });
  const stop = runMailDelivery(deps(jobs, { attempts: 2 }), flaky, { intervalMs: 50 });
  await until('the flaky mail is sent', async () => Boolean((await outbox.get(flakyId))?.sentAt));
  await until('the dead mail failed its attempts', async () => (await jobs.counts()).mail?.failed === 1);
  await stop();
  assert.is((await outbox.get(flakyId))!.attempts, 2);
  const dead = await outbox.get(deadId);
  assert.equal([dead!.sentAt, dead!.attempts, dead!.lastError], [null, 2, 'mailbox unavailable']);
  assert.is(transport.sent.filter((m) => m.includes(flakyTo)).length, 1);
  const handedBefore = (await knex('mail_outbox').where({ id: deadId }).first()).handed_over_at;
  await new MailRelay(knex, jobs, 2).relayPending(1000);
  assert.equal((await knex('mail_outbox').where({ id: deadId }).first()).handed_over_at, handedBefore, 'a mail out of attempts is left to the operator');
  const counts = (await jobs.counts()).mail!;
  assert.ok(counts.failedAttempts >= 3, 'every failed attempt is counted');
});

test('two processes never send the same message', async () => {
  const knex = testKnex();
  const outbox = new MailOutbox(knex);
  const to = newAddress();
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push(await outbox.enqueue({ tenantId: null, kind: 'test', to, subject: `m${i}`, text: 't' }));
  const prefix = freshPrefix();
  const a = rendering();
  const b = rendering();
  const stopA = runMailDelivery(deps(newJobs(prefix)), a, { intervalMs: 20 });
  const stopB = runMailDelivery(deps(newJobs(prefix)), b, { intervalMs: 20 });
  await until('all ten are sent', async () => (await knex('mail_outbox').whereIn('id', ids).whereNotNull('sent_at').count<{ count: string }[]>('* as count'))[0]!.count === '10');
  await Promise.all([stopA(), stopB()]);
  const all = [...a.sent, ...b.sent].filter((m) => m.includes(to));
  assert.is(all.length, 10);
  assert.is(new Set(all.map((m) => /Subject: (m\d+)/.exec(m)![1])).size, 10);
});

test.run();
