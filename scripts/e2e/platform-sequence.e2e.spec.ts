/**
 * The platform account signs many transactions (each publish opens an escrow, each eligible delist pays a refund,
 * anchors when the anchoring key is the platform's): each takes its sequence number from the ledger, so concurrent
 * ones, in one process or in several, must take turns or they bounce with tx_bad_seq. Here two command-api
 * processes share the database and the sandbox network, several organisers publish at once, refunds are paid and
 * the event log is anchored under the platform's key in the middle of it: everything succeeds.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startListingRefunds } from '@cagnotte/command-api';
import { EscrowLedger, createEventAnchor, loadConfig, sandboxKeys, type Services } from '@cagnotte/infra';
import { call, eventually, startApi, startSecondCommandApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

interface Ctx {
  api: TestApi;
  second: { url: string; services: Services };
  tenant: string;
  organisers: TestUser[];
}

const ORGANISERS = 5;
const PUBLISHES = 50;
const REFUNDS = 3;

const test = suite<Ctx>('e2e: the platform account under concurrent transactions');

/**
 * The shared-key case: anchors signed by the platform's own key, so they draw from its sequence too. The turn's
 * timeout is raised: the whole burst goes through one account's turns, and on a loaded machine the last one may wait
 * longer than the default 30 s (the 503 after the timeout is source-lock.int.spec.ts's).
 */
const overrides = () => {
  const passphrase = loadConfig(process.env).STELLAR_NETWORK_PASSPHRASE;
  return { ANCHOR_SIGNING_SECRET: sandboxKeys(passphrase).platform.secret(), ANCHOR_INTERVAL_SECONDS: 0, LEDGER_TURN_TIMEOUT_MS: 180_000 };
};

test.before(async (ctx) => {
  ctx.api = await startApi(overrides());
  // A second command-api process (its own services: its own pools, queues and ledger client) on the same database.
  ctx.second = await startSecondCommandApi(overrides());
  // The second process's ledger client calls its own sandbox Horizon: it learns its address from a first request.
  await call(ctx.second.url, 'GET', '/sandbox/horizon/');
  ctx.tenant = (await ctx.api.tenant({ listingFees: { LISTED: '5', FEATURED: '20' } })).slug;
  ctx.organisers = await Promise.all(Array.from({ length: ORGANISERS }, () => ctx.api.user(ctx.tenant, { role: 'organiser' })));
});
test.after(async (ctx) => ctx.api.stop());

const draft = async (ctx: Ctx, organiser: TestUser, title: string): Promise<string> => {
  const res = await ctx.api.call('POST', '/api/pools', { token: organiser.token, tenant: ctx.tenant, body: { type: 'GROUPS', title, config: { units: [{ id: 'u', label: 'Panier', price: '10' }] } } });
  assert.is(res.status, 201, res.text);
  return res.body.data.id as string;
};

const eurc = async (u: TestUser) => Number((await u.wallet!.horizon.loadAccount(u.wallet!.keypair.publicKey())).balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC')?.balance ?? 0);

test(`${PUBLISHES} concurrent publishes by ${ORGANISERS} organisers over two processes, with delist refunds and an anchor run in between: all succeed, and their retries replay`, async (ctx) => {
  const { api } = ctx;
  // Pools listed for a fee (one per organiser: each pays from its own account), to be delisted (refund owed) during the burst.
  const listed = await Promise.all(
    ctx.organisers.slice(0, REFUNDS).map(async (organiser, i) => {
      const id = await draft(ctx, organiser, `Listed ${i}`);
      const published = await api.call('POST', `/api/pools/${id}/publish`, { token: organiser.token, tenant: ctx.tenant });
      assert.is(published.status, 200, published.text);
      const listing = (await api.call('POST', `/api/pools/${id}/list`, { token: organiser.token, tenant: ctx.tenant, body: { tier: 'LISTED' } })).body.data.listing;
      const paid = await api.call('POST', `/api/pools/${id}/list/submit`, { token: organiser.token, tenant: ctx.tenant, body: { listingId: listing.listingId, signedXdr: signXdr(organiser.wallet!, listing.xdr).toXDR() } });
      assert.is(paid.body.data.listed, true, paid.text);
      return { id, organiser };
    }),
  );
  const before = await Promise.all(listed.map((l) => eurc(l.organiser)));
  const drafts = await Promise.all(
    Array.from({ length: PUBLISHES }, async (_, i) => {
      const organiser = ctx.organisers[i % ORGANISERS]!;
      return { id: await draft(ctx, organiser, `Burst ${i}`), organiser, key: randomUUID(), url: i % 2 === 0 ? api.url : ctx.second.url };
    }),
  );

  // Refunds are paid by the job workers of both processes; the anchor by a third party (the CLI, say).
  const stopRefunds = [startListingRefunds(api.services, new EscrowLedger(api.services.ledger)), startListingRefunds(ctx.second.services, new EscrowLedger(ctx.second.services.ledger))];
  try {
    const anchor = createEventAnchor(api.services)!;
    const publish = (d: (typeof drafts)[number]) => call(d.url, 'POST', `/api/pools/${d.id}/publish`, { token: d.organiser.token, tenant: ctx.tenant, headers: { 'idempotency-key': d.key } });
    const started = Date.now();
    const [results, delists, anchored] = await Promise.all([
      Promise.all(drafts.map(publish)),
      Promise.all(listed.map((l, i) => call(i % 2 === 0 ? ctx.second.url : api.url, 'PATCH', `/api/pools/${l.id}`, { token: l.organiser.token, tenant: ctx.tenant, body: { marketplaceVisibility: 'PRIVATE' } }))),
      new Promise((r) => setTimeout(r, 50)).then(() => anchor.anchorNow()),
    ]);
    const seconds = (Date.now() - started) / 1000;
    const failed = results.filter((r) => r.status !== 200) as Array<ApiResponse<any>>;
    const badSeq = failed.filter((r) => JSON.stringify(r.body).includes('tx_bad_seq')).length;
    assert.is(failed.length, 0, `${failed.length} of ${PUBLISHES} publishes failed (${badSeq} tx_bad_seq), first: ${failed[0]?.status} ${failed[0]?.text}`);
    console.log(`  ${PUBLISHES} concurrent publishes in ${seconds.toFixed(2)} s: ${(PUBLISHES / seconds).toFixed(1)} publishes/s`);
    for (const d of delists) assert.is(d.status, 200, d.text);
    assert.is(anchored.status, 'anchored');

    // Every escrow is on the ledger with its own account, and every retry with its key replays the answer.
    const escrowLedger = new EscrowLedger(api.services.ledger);
    const escrows = await Promise.all(drafts.map((d) => escrowLedger.escrowState(escrowLedger.escrowAccountOf(d.id))));
    assert.ok(escrows.every((s) => s.exists && s.thresholds.med === 2), 'every escrow account is open');
    const replays = await Promise.all(drafts.map(publish));
    for (const r of replays) {
      assert.is(r.status, 200, r.text);
      assert.is(r.headers.get('idempotent-replayed'), 'true');
    }

    // The refunds: paid back once each on the ledger, and recorded.
    await eventually(async () => (await Promise.all(listed.map((l) => eurc(l.organiser)))).every((b, i) => b === before[i]! + 5), 'every delist refund paid on the ledger', 20_000);
    for (const l of listed) {
      await eventually(async () => (await api.services.store.readStream(`pool-${l.id}`)).some((e) => e.type === 'PoolListingFeeRefunded'), 'the refund recorded', 20_000);
    }
  } finally {
    await Promise.all(stopRefunds.map((stop) => stop()));
  }
});

test.run();
