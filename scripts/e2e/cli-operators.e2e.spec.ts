import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { groupsPool, runCli, startApi, type TestApi, type TestUser } from './harness';

/**
 * The operator CLI as operators expect it (README.md#operator-cli): a command's own `--help`, one line naming the
 * closest command for a typo, the directory lists paged as JSON, and progress on stderr when stderr is a pipe (runCli
 * pipes it, as a CI log or `2> file` would).
 */
const test = suite<{ api: TestApi; tenant: string; organiser: TestUser }>('operator CLI: help, suggestions, lists, progress');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', accountType: 'BUSINESS', wallet: false });
});
test.after(async (ctx) => ctx.api.stop());

test('`<command> --help` and `help <command>` print that command alone and exit 0; the global --help prints every command', async () => {
  const rebuild = await runCli('projections', 'rebuild', '--help');
  assert.is(rebuild.code, 0, rebuild.err);
  assert.match(rebuild.out, /projections rebuild <name>/);
  assert.not.match(rebuild.out, /^ {2}(projections status|escrow reconcile|tenant create)/m, 'one command, not the whole usage');
  assert.match(rebuild.out, /Exit codes: 0 .*; 1 .*2 bad usage/s);
  const pool = await runCli('pool', '--help');
  assert.is(pool.code, 0, pool.err);
  for (const verb of ['pool list', 'pool history', 'pool state']) assert.ok(pool.out.includes(verb), `pool --help names ${verb}: ${pool.out}`);
  assert.not.match(pool.out, /^ {2}(tenant create|api-keys)/m);
  const viaHelp = await runCli('help', 'tenant', 'list');
  assert.is(viaHelp.code, 0, viaHelp.err);
  assert.match(viaHelp.out, /tenant list \[--limit <n>\] \[--after <cursor>\]/);
  assert.not.match(viaHelp.out, /^ {2}tenant create/m);
  const withArgs = await runCli('user', 'list', '--tenant', 'whatever', '--help');
  assert.is(withArgs.code, 0, 'a command with its arguments and --help: the help, nothing run');
  assert.match(withArgs.out, /user list --tenant <slug>/);
  const all = await runCli('--help');
  assert.is(all.code, 0);
  for (const c of ['tenant create', 'projections rebuild', 'escrow reconcile', 'tenant list', 'user list', 'pool list', 'relais hosts list', 'Exit codes']) assert.ok(all.out.includes(c), `--help has ${c}`);
});

test('an unknown command gets one line naming the closest one and the way to --help, exit 2, not the usage', async () => {
  const typo = await runCli('projection', 'status');
  assert.is(typo.code, 2);
  assert.is(typo.out, '');
  const lines = typo.err.trim().split('\n');
  assert.is(lines.length, 1, typo.err);
  assert.match(lines[0]!, /^unknown command 'projection status'; did you mean 'projections status'\?.*--help/);
  const verb = await runCli('tenant', 'lsit', '--limit', '3');
  assert.is(verb.code, 2);
  assert.match(verb.err, /did you mean 'tenant list'\?/);
  const transposed = await runCli('escrow', 'reconcilie');
  assert.match(transposed.err, /did you mean 'escrow reconcile'\?/);
  const nothing = await runCli('frobnicate');
  assert.is(nothing.code, 2);
  assert.is(nothing.err.trim(), "unknown command 'frobnicate'; `pnpm cli --help` lists every command");
  const noun = await runCli('relais', 'hosts');
  assert.is(noun.code, 2);
  assert.match(noun.err, /'relais hosts' needs a sub-command: list, approve, reject/);
  const badHelp = await runCli('projectoins', 'rebuild', '--help');
  assert.is(badHelp.code, 2);
  assert.match(badHelp.err, /did you mean 'projections rebuild'\?/);
  // A known command with a bad argument: the error and where its usage is, not the whole usage.
  const bad = await runCli('pool', 'list', '--limit', '0');
  assert.is(bad.code, 2);
  assert.match(bad.err, /--limit takes 1 to 1000/);
  assert.match(bad.err, /pnpm cli pool list --help/);
  assert.not.match(bad.err, /tenant create/);
});

type Page<T> = { items: T[]; nextCursor: string | null };

/** Every page of a list verb, `limit` at a time. */
const allPages = async <T>(args: string[], limit: number): Promise<Array<Page<T>>> => {
  const pages: Array<Page<T>> = [];
  let after: string | null = null;
  for (let i = 0; i < 200; i++) {
    const res = await runCli(...args, '--limit', String(limit), ...(after ? ['--after', after] : []));
    assert.is(res.code, 0, res.err);
    const page = JSON.parse(res.out) as Page<T>;
    assert.ok(page.items.length <= limit, `at most ${limit} a page`);
    pages.push(page);
    if (!page.nextCursor) return pages;
    after = page.nextCursor;
  }
  throw new Error('the list never ended');
};

test('tenant list pages every tenant once, oldest first; user list pages a tenant accounts; bad paging is bad usage', async (ctx) => {
  const mine = [ctx.tenant, (await ctx.api.tenant()).slug, (await ctx.api.tenant()).slug];
  const first = await runCli('tenant', 'list', '--limit', '1000');
  assert.is(first.code, 0, first.err);
  const everything = JSON.parse(first.out) as Page<{ slug: string; tenantId: string; createdAt: string }>;
  assert.is(everything.nextCursor, null);
  const pages = await allPages<{ slug: string; createdAt: string }>(['tenant', 'list'], 2);
  const slugs = pages.flatMap((p) => p.items.map((t) => t.slug));
  assert.equal(slugs, everything.items.map((t) => t.slug), 'pages of 2 give the same list as one page');
  assert.is(new Set(slugs).size, slugs.length, 'no tenant twice');
  for (const slug of mine) assert.ok(slugs.includes(slug), `${slug} listed`);
  assert.ok(mine.map((s) => slugs.indexOf(s)).every((at, i, a) => i === 0 || at > a[i - 1]!), 'oldest first');
  const times = everything.items.map((t) => Date.parse(t.createdAt));
  assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]!), 'ordered by creation time');

  for (let i = 0; i < 4; i++) await ctx.api.user(mine[1]!, { wallet: false });
  const users = await allPages<{ id: string; email: string; registeredAt: string; blocked: boolean }>(['user', 'list', '--tenant', mine[1]!], 3);
  assert.equal(users.map((p) => p.items.length), [3, 1]);
  assert.is(new Set(users.flatMap((p) => p.items.map((u) => u.id))).size, 4);
  const block = await runCli('user', 'block', '--tenant', mine[1]!, '--email', users[1]!.items[0]!.email);
  assert.is(block.code, 0, block.err);
  const after = JSON.parse((await runCli('user', 'list', '--tenant', mine[1]!)).out) as Page<{ email: string; blocked: boolean }>;
  assert.equal(after.items.filter((u) => u.blocked).map((u) => u.email), [users[1]!.items[0]!.email]);
  assert.is(JSON.parse((await runCli('user', 'list', '--tenant', mine[2]!)).out).items.length, 0, 'another tenant has its own accounts');

  assert.is((await runCli('user', 'list')).code, 2, 'user list needs --tenant');
  assert.is((await runCli('user', 'list', '--tenant', 'no-such-tenant-here')).code, 2);
  assert.is((await runCli('tenant', 'list', '--limit', '1001')).code, 2);
  assert.is((await runCli('tenant', 'list', '--limit', 'ten')).code, 2);
  assert.is((await runCli('tenant', 'list', '--after', 'not-a-cursor')).code, 2);
  const poolCursor = JSON.parse((await runCli('pool', 'list', '--limit', '1')).out).nextCursor as string | null;
  if (poolCursor) assert.is((await runCli('tenant', 'list', '--after', poolCursor)).code, 2, "another list's cursor is refused");
});

test('pool list pages a tenant pools by their number (10 after 9, not after 1), filters by status, every tenant without --tenant', async (ctx) => {
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body: groupsPool({ title: `Pool ${i + 1}` }) });
    assert.is(res.status, 201, res.text);
    ids.push(res.body.data.id as string);
  }
  const pages = await allPages<{ id: string; title: string; status: string; tenant: string }>(['pool', 'list', '--tenant', ctx.tenant], 5);
  assert.equal(pages.map((p) => p.items.length), [5, 5, 2]);
  assert.equal(pages.flatMap((p) => p.items.map((x) => x.id)), ids, 'in creation order across pages');
  assert.equal(pages.flatMap((p) => p.items.map((x) => x.title)).slice(8, 11), ['Pool 9', 'Pool 10', 'Pool 11']);
  assert.ok(pages.every((p) => p.items.every((x) => x.tenant === ctx.tenant && x.status === 'DRAFT')));

  const published = await ctx.api.call('POST', `/api/pools/${ids[3]}/publish`, { token: ctx.organiser.token, tenant: ctx.tenant });
  const open = await runCli('pool', 'list', '--tenant', ctx.tenant, '--status', 'open');
  assert.is(open.code, 0, open.err);
  const openIds = (JSON.parse(open.out) as Page<{ id: string }>).items.map((x) => x.id);
  if (published.status === 200) assert.equal(openIds, [ids[3]]);
  else assert.equal(openIds, [], published.text);
  assert.is((await runCli('pool', 'list', '--status', 'sideways')).code, 2);

  const everyTenant = await runCli('pool', 'list', '--limit', '1000');
  const listed = (JSON.parse(everyTenant.out) as Page<{ id: string }>).items.map((x) => x.id);
  assert.ok(ids.every((id) => listed.includes(id)), 'every tenant without --tenant');
});

test('projections rebuild in a pipe prints progress lines on stderr (done/total, rate, ETA) and its JSON alone on stdout', async () => {
  const res = await runCli('projections', 'rebuild', 'pools');
  assert.is(res.code, 0, res.err);
  const result = JSON.parse(res.out) as { projection: string; events: number; state: string };
  assert.is(result.projection, 'pools');
  const lines = res.err.split('\n').filter((l) => l.startsWith('rebuilding pools:'));
  assert.ok(lines.length >= 1, `progress lines: ${res.err}`);
  for (const line of lines) assert.match(line, /^rebuilding pools: \d+\/\d+ events \(\d+%\), \d+\/s, ETA \S+, elapsed \S+$/);
  const [, done, total] = /: (\d+)\/(\d+) events/.exec(lines[lines.length - 1]!)!;
  assert.is(done, total, 'the last line: every event read');
  assert.not.ok(res.err.includes('\u001b['), 'no terminal escapes in a pipe');

  const catchUp = await runCli('projections', 'catch-up');
  assert.is(catchUp.code, 0, catchUp.err);
  assert.equal(JSON.parse(catchUp.out), { caughtUp: true });
});

test.run();
