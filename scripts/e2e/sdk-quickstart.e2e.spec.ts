import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type TestApi } from './harness';

/**
 * The README's deal quickstart (sdk/examples/deal-quickstart.ts) run as a reader runs it, `npx tsx …` in a process
 * of its own, against the API started here on a port, with a test API key made here: it exits 0 and prints the
 * released deal and its payout.
 */
interface Ctx {
  api: TestApi;
  apiKey: string;
}

const ROOT = resolve(__dirname, '../..');
const test = suite<Ctx>('sdk quickstart: from an API key to a released deal');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = (await ctx.api.tenant()).slug;
  const market = await ctx.api.user(tenant, { role: 'organiser', wallet: false, name: 'Market' });
  ctx.apiKey = (await ctx.api.apiKey(market, { mode: 'test' })).secret;
});
test.after(async (ctx) => ctx.api.stop());

const run = async (env: Record<string, string>): Promise<{ code: number; out: string; err: string }> => {
  try {
    const { stdout, stderr } = await promisify(execFile)('npx', ['tsx', 'sdk/examples/deal-quickstart.ts'], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
};

test('given a running service and a test API key, the quickstart exits 0 and prints the released deal, the seller paid in full', async (ctx) => {
  const result = await run({ CAGNOTTE_URL: ctx.api.url, CAGNOTTE_API_KEY: ctx.apiKey });
  assert.is(result.code, 0, `${result.out}\n${result.err}`);
  const released = /^released (deal_[0-9a-f]{32}) released$/m.exec(result.out);
  assert.ok(released, result.out);
  assert.match(result.out, /^payout seller 120\.00$/m);
  assert.match(result.out, /^seller's wallet holds 120\.00 EUR$/m);
  // The deal it printed is the tenant's, released, on the read side too.
  const read = await ctx.api.call('GET', `/v1/deals/${released![1]}`, { headers: { authorization: `Bearer ${ctx.apiKey}` } });
  assert.equal([read.status, read.body.data.status], [200, 'released'], read.text);
});

test('given a wrong API key, the quickstart exits 1 with the refusal’s status and code', async (ctx) => {
  const result = await run({ CAGNOTTE_URL: ctx.api.url, CAGNOTTE_API_KEY: 'sk_test_nope' });
  assert.is(result.code, 1, result.out);
  assert.match(result.err, /^refused: 401 /m);
});

test.run();
