import { randomUUID } from 'node:crypto';
import { EscrowLedger } from '@cagnotte/infra';
import { fmtMs, freshDatabase, latency, nowMs, table, type Latency, type SummaryRow } from './lib';
import { call, startApi, type TestApi, type TestUser } from '../e2e/harness';

/**
 * Publishing under contention: every publish opens its pool's escrow with a transaction of the platform account, and
 * the platform's transactions take turns (docs/ledger-sequence.md). `publishes` POST /api/pools/{id}/publish sent at
 * once by several organisers, over HTTP against the embedded API and its sandbox network, beside two baselines of the
 * same run: the same number of publishes one after another, and the ledger part alone (EscrowLedger.openEscrow, one
 * after another), which is what a publish holds the platform's turn for.
 */
export interface PublishBenchOptions {
  url: string;
  publishes: number;
}

const ORGANISERS = 5;

interface Run {
  ok: number;
  failed: Record<string, number>;
  seconds: number;
  perSecond: number;
  latency: Latency;
}

const drafts = async (api: TestApi, tenant: string, organisers: TestUser[], n: number) => {
  const out: Array<{ id: string; organiser: TestUser }> = [];
  for (let i = 0; i < n; i++) {
    const organiser = organisers[i % organisers.length]!;
    const res = await api.call('POST', '/api/pools', { token: organiser.token, tenant, body: { type: 'GROUPS', title: `Bench ${i}`, config: { units: [{ id: 'u', label: 'U', price: '10' }] } } });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    out.push({ id: res.body.data.id, organiser });
  }
  return out;
};

const measure = async (tasks: Array<() => Promise<{ status: number; text: string }>>, concurrent: boolean): Promise<Run> => {
  const samples: number[] = [];
  const failed: Record<string, number> = {};
  let ok = 0;
  const one = async (task: () => Promise<{ status: number; text: string }>) => {
    const at = nowMs();
    const r = await task();
    samples.push(nowMs() - at);
    if (r.status === 200) ok++;
    else {
      const code = /"code":"([a-z_]+)"/.exec(r.text)?.[1] ?? String(r.status);
      const why = /tx_bad_seq/.test(r.text) ? `${code}/tx_bad_seq` : code;
      failed[why] = (failed[why] ?? 0) + 1;
    }
  };
  const started = nowMs();
  if (concurrent) await Promise.all(tasks.map(one));
  else for (const task of tasks) await one(task);
  const seconds = (nowMs() - started) / 1000;
  return { ok, failed, seconds, perSecond: ok / seconds, latency: latency(samples) };
};

export const runPublish = async (o: PublishBenchOptions): Promise<{ rows: Array<Omit<SummaryRow, 'part'> & { part: 'publish' }>; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const api = await startApi({ DATABASE_URL: o.url, REDIS_KEY_PREFIX: `bench:publish:${randomUUID()}:`, ANCHOR_INTERVAL_SECONDS: 0 });
  try {
    const tenant = (await api.tenant()).slug;
    const organisers: TestUser[] = [];
    for (let i = 0; i < ORGANISERS; i++) organisers.push(await api.user(tenant, { role: 'organiser' }));
    const publish = (d: { id: string; organiser: TestUser }) => () => call(api.url, 'POST', `/api/pools/${d.id}/publish`, { token: d.organiser.token, tenant, headers: { 'idempotency-key': randomUUID() } });

    const sequential = await measure((await drafts(api, tenant, organisers, o.publishes)).map(publish), false);
    const concurrent = await measure((await drafts(api, tenant, organisers, o.publishes)).map(publish), true);
    const escrow = new EscrowLedger(api.services.ledger);
    const organiser = organisers[0]!.wallet!.keypair.publicKey();
    const ledgerOnly = await measure(
      Array.from({ length: o.publishes }, () => async () => {
        await escrow.openEscrow({ poolId: randomUUID(), organiserAccount: organiser });
        return { status: 200, text: '' };
      }),
      false,
    );

    const show = (name: string, r: Run) => [name, `${r.ok}/${o.publishes}`, Object.entries(r.failed).map(([k, v]) => `${k} ${v}`).join(', ') || '0', `${r.seconds.toFixed(2)} s`, `${r.perSecond.toFixed(1)}/s`, fmtMs(r.latency.p50), fmtMs(r.latency.p99)];
    console.log(`\n## Publishes (${o.publishes}, ${ORGANISERS} organisers, the platform's transactions in turn)`);
    console.log(
      table(
        ['run', 'ok', 'failed', 'wall', 'rate', 'p50', 'p99'],
        [show(`${o.publishes} publishes at once`, concurrent), show('baseline: one after another', sequential), show('baseline: openEscrow alone, one after another', ledgerOnly)],
      ),
    );
    return {
      rows: [
        {
          part: 'publish',
          metric: `${o.publishes} concurrent publishes (${ORGANISERS} organisers)`,
          measured: `${concurrent.perSecond.toFixed(1)}/s, ${concurrent.ok}/${o.publishes} ok`,
          baseline: `${sequential.perSecond.toFixed(1)}/s one after another; openEscrow alone ${ledgerOnly.perSecond.toFixed(1)}/s`,
          target: 'all succeed',
          pass: concurrent.ok === o.publishes,
          raw: { concurrent, sequential, ledgerOnly },
        },
      ],
      details: { publishes: o.publishes, organisers: ORGANISERS, concurrent, sequential, ledgerOnly },
    };
  } finally {
    await api.stop();
  }
};
