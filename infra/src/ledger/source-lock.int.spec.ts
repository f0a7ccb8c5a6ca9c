/**
 * The platform's transactions take turns across processes (docs/ledger-sequence.md): two gateways, each with its own
 * PostgresSourceLock on its own pg pool (two processes), on a sandbox network of this file's own, with delays
 * injected between reading the sequence and submitting, failures injected in the submission, and a holder that hangs.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Asset, BASE_FEE, Keypair, Operation, TransactionBuilder, type Horizon, type Transaction } from '@stellar/stellar-sdk';
import { SandboxLedger, sandboxKeys } from '@cagnotte/sandbox-ledger';
import { serveSandboxHorizon } from '../testing/sandbox-horizon';
import { createPgPool } from '../db/database';
import { onTestTeardown, testDatabaseUrl, testKnex } from '../testing/resources';
import { LedgerGateway, LedgerUnavailableError, type Submitted } from './gateway';
import { PostgresSourceLock, SOURCE_LOCK_CLASS, sourceLockKey } from './source-lock';

const PASSPHRASE = `Cagnotte source lock spec ${randomUUID()}`;
const keys = sandboxKeys(PASSPHRASE);
const sandbox = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
const PLATFORM = keys.platform.publicKey();
let url = '';

type Failure = null | 'refused_unanswered' | 'applied_unanswered';

/** A gateway whose next submission can be made to fail: `failNext` injects a timeout before, or after, the ledger applied it. */
class FlakyGateway extends LedgerGateway {
  failNext: Failure = null;

  override async submit(tx: Transaction): Promise<Submitted> {
    const failure = this.failNext;
    this.failNext = null;
    if (failure === 'refused_unanswered') throw new LedgerUnavailableError('injected: no answer');
    const answer = await super.submit(tx);
    if (failure === 'applied_unanswered') throw new LedgerUnavailableError('injected: the answer was lost');
    return answer;
  }
}

/** A process: its own pg pool, its own lock, its own gateway. */
class Process {
  readonly pool = createPgPool(testDatabaseUrl(), 4);
  readonly lock: PostgresSourceLock;
  readonly gateway: FlakyGateway;

  constructor(timeoutMs?: number) {
    onTestTeardown(() => this.pool.end());
    this.lock = new PostgresSourceLock(this.pool, timeoutMs);
    this.gateway = new FlakyGateway(
      {
        horizonUrl: () => url,
        networkPassphrase: PASSPHRASE,
        assetCode: 'EURC',
        assetIssuer: keys.issuer.publicKey(),
        platformAccount: PLATFORM,
        platformKeypair: keys.platform,
        signingKeypair: keys.signing,
        homeDomain: 'cagnotte.local',
        allowHttp: true,
      },
      this.lock,
    );
  }

  /** A platform payment of 1 XLM to `to`, `delayMs` after reading the sequence (the window two builders collide in). */
  pay(to: string, delayMs = 0, onBuild?: (source: Horizon.AccountResponse) => Promise<void>): Promise<Submitted> {
    return this.gateway.submitFrom(PLATFORM, async (source) => {
      await onBuild?.(source);
      const tx = new TransactionBuilder(source, { fee: BASE_FEE, networkPassphrase: PASSPHRASE })
        .addOperation(Operation.payment({ destination: to, asset: Asset.native(), amount: '1' }))
        .setTimeout(300)
        .build();
      tx.sign(keys.platform);
      await new Promise((r) => setTimeout(r, delayMs));
      return tx;
    });
  }
}

const test = suite<{ a: Process; b: Process; to: string }>('platform transactions take turns across processes');

test.before(async (ctx) => {
  url = await serveSandboxHorizon(sandbox);
  ctx.a = new Process();
  ctx.b = new Process();
  await sandbox.ensureGenesis();
  ctx.to = Keypair.random().publicKey();
  await ctx.a.gateway.server.friendbot(ctx.to).call();
});

const sequenceOf = async (p: Process) => BigInt((await p.gateway.loadAccount(PLATFORM))!.sequence);
const sequenceOfTx = async (p: Process, hash: string) => BigInt((await p.gateway.readTransaction(hash))!.tx.sequence);

test('two processes, 24 payments at once with 20 ms between reading the sequence and submitting: every one applies, on consecutive numbers', async ({ a, b, to }) => {
  const before = await sequenceOf(a);
  const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).pay(to, 20)));
  const sequences = await Promise.all(results.map((r) => sequenceOfTx(a, r.hash)));
  assert.equal(
    [...sequences].sort((x, y) => (x < y ? -1 : 1)),
    Array.from({ length: 24 }, (_, i) => before + BigInt(i + 1)),
  );
  assert.is(await sequenceOf(a), before + 24n);
});

test('one holder at a time across the two locks, whatever the delays', async ({ a, b }) => {
  let inside = 0;
  let most = 0;
  const task = (ms: number) => async () => {
    most = Math.max(most, ++inside);
    await new Promise((r) => setTimeout(r, ms));
    inside--;
  };
  await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).lock.hold(PLATFORM, task((i * 7) % 15))));
  assert.is(most, 1);
});

test('a submission that got no answer and did not land: the caller gets 503 material, and the next holder (the other process) uses the same number', async ({ a, b, to }) => {
  const before = await sequenceOf(a);
  a.gateway.failNext = 'refused_unanswered';
  try {
    await a.pay(to);
    assert.unreachable('the injected failure must surface');
  } catch (e) {
    assert.instance(e, LedgerUnavailableError);
  }
  const next = await b.pay(to);
  assert.is(await sequenceOfTx(b, next.hash), before + 1n, 'the number of the lost attempt, read from the ledger again');
});

test('a submission whose answer was lost after it applied: found on the ledger and answered; the next holder builds on the number after it', async ({ a, b, to }) => {
  const before = await sequenceOf(a);
  a.gateway.failNext = 'applied_unanswered';
  const landed = await a.pay(to);
  assert.is(await sequenceOfTx(a, landed.hash), before + 1n);
  const next = await b.pay(to);
  assert.is(await sequenceOfTx(b, next.hash), before + 2n);
});

test('the account used outside the lock (tx_bad_seq): built again on a fresh read, and applied', async ({ a, to }) => {
  let builds = 0;
  const result = await a.pay(to, 0, async (source) => {
    if (builds++ > 0) return;
    // Someone else (an operator, another deployment) takes this very number meanwhile.
    const outside = new TransactionBuilder(await a.gateway.loadAccount(PLATFORM).then((x) => x!), { fee: BASE_FEE, networkPassphrase: PASSPHRASE })
      .addOperation(Operation.bumpSequence({ bumpTo: '0' }))
      .setTimeout(300)
      .build();
    outside.sign(keys.platform);
    await a.gateway.submit(outside);
    assert.ok(BigInt(source.sequence) < BigInt(outside.sequence));
  });
  assert.is(builds, 2);
  assert.ok(await a.gateway.readTransaction(result.hash));
});

test('a holder that hangs (a stuck process) makes the others wait at most their timeout (503 material), and one that dies releases the account', async ({ to }) => {
  const stuck = createPgPool(testDatabaseUrl(), 1);
  const client = await stuck.connect();
  await client.query('SELECT pg_advisory_lock($1, $2)', [SOURCE_LOCK_CLASS, sourceLockKey(PLATFORM)]);
  const impatient = new Process(300);
  try {
    await impatient.pay(to);
    assert.unreachable('the account is held elsewhere');
  } catch (e) {
    assert.instance(e, LedgerUnavailableError);
    assert.match((e as Error).message, /busy/);
  }
  // The stuck process dies: PostgreSQL drops its session, and its lock.
  client.release(true);
  await stuck.end();
  const paid = await impatient.pay(to);
  assert.ok(paid.hash);
});

test.run();
