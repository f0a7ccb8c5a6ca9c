import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnsafeWebhookAddressError, assessWebhookUrl, checkWebhookUrl, isPublicAddress, resolvePublicAddress, type Resolver } from './ssrf';

const test = suite('webhook URL guard (SSRF)');

const PROD = { production: true };
const SANDBOX = { production: false, allowLoopbackHttp: true, sandboxInboxBase: 'http://127.0.0.1:3000/sandbox/webhook-inbox/' };

const refused = (url: string, o = PROD) => {
  const r = checkWebhookUrl(url, o);
  assert.not.ok(r.ok, `${url} should be refused`);
  return r.ok ? '' : r.problem;
};
const accepted = (url: string, o: Parameters<typeof checkWebhookUrl>[1] = PROD) => {
  const r = checkWebhookUrl(url, o);
  assert.ok(r.ok, `${url} should pass: ${r.ok ? '' : r.problem}`);
};

test('given production, when a URL names a private, loopback, link-local or reserved IPv4 literal, then it is refused', () => {
  for (const ip of ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1', '127.0.0.1', '127.1.2.3', '169.254.169.254', '100.64.0.1', '100.127.255.255', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1']) {
    assert.match(refused(`https://${ip}/hook`), /private, loopback or link-local/, ip);
  }
});

test('given production, when the neighbours of those ranges are used, then they pass (the ranges are exact)', () => {
  for (const ip of ['11.0.0.1', '172.15.255.255', '172.32.0.1', '192.169.0.1', '100.63.255.255', '100.128.0.1', '169.253.0.1', '8.8.8.8', '1.1.1.1']) accepted(`https://${ip}/hook`);
});

test('given production, when an IPv6 literal is loopback, unique-local, link-local, unspecified or IPv4-mapped private, then it is refused', () => {
  for (const ip of ['[::1]', '[::]', '[fc00::1]', '[fd12:3456:789a::1]', '[fe80::1]', '[febf::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::ffff:10.0.0.1]', '[::ffff:169.254.169.254]', '[64:ff9b::a9fe:a9fe]', '[ff02::1]', '[2002:7f00:1::]']) {
    assert.match(refused(`https://${ip}/`), /private, loopback or link-local/, ip);
  }
  accepted('https://[2606:4700:4700::1111]/');
  accepted('https://[::ffff:8.8.8.8]/');
});

test('given production, when an IPv4 address is spelt in decimal, octal or hex, then the parser normalises it and it is refused', () => {
  for (const url of ['http://2130706433/', 'https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://0x7f000001/', 'https://127.1/', 'https://0xa9.0xfe.0xa9.0xfe/', 'https://3232235777/']) {
    assert.not.ok(checkWebhookUrl(url, PROD).ok, url);
  }
  assert.match(refused('https://0x7f.1/'), /private, loopback or link-local/);
});

test("given production, when the host is 'localhost' or a local-only name, then it is refused", () => {
  for (const url of ['https://localhost/', 'https://LOCALHOST./', 'https://api.localhost/', 'https://printer.local/', 'https://metadata.google.internal/', 'https://intranet/']) {
    assert.match(refused(url), /public host/, url);
  }
});

test('given production, when the URL is http, carries credentials or is not a URL, then it is refused with the reason', () => {
  assert.match(refused('http://example.com/hook'), /https:\/\/ in production/);
  assert.match(refused('https://user:pw@example.com/hook'), /user name or password/);
  assert.match(refused('ftp://example.com/'), /https/);
  assert.match(refused('not a url'), /valid absolute URL/);
  assert.match(refused(`https://example.com/${'a'.repeat(2048)}`), /at most 2048/);
  accepted('https://hooks.example.com:8443/in?x=1');
});

test('given the sandbox, when http is used, then only loopback hosts and the own inbox pass', () => {
  accepted('http://localhost:4000/hook', SANDBOX);
  accepted('http://127.0.0.1:4000/hook', SANDBOX);
  accepted('http://[::1]:4000/hook', SANDBOX);
  accepted('http://127.0.0.1:3000/sandbox/webhook-inbox/abc123', SANDBOX);
  assert.ok((checkWebhookUrl('http://127.0.0.1:3000/sandbox/webhook-inbox/abc123', SANDBOX) as { sandboxInbox: boolean }).sandboxInbox);
  assert.match(refused('http://example.com/hook', SANDBOX), /sandbox allows http:\/\/ only/);
  assert.match(refused('http://10.0.0.1/hook', SANDBOX), /sandbox allows http:\/\/ only/);
  assert.match(refused('http://localhost:4000/hook', { production: false }), /https/, 'loopback http needs allowLoopbackHttp');
  accepted('http://127.0.0.1:3000/sandbox/webhook-inbox/abc123', { production: false, sandboxInboxBase: SANDBOX.sandboxInboxBase });
  for (const url of ['https://192.168.1.10/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/', 'https://100.64.0.1/x', 'https://[fe80::1]/x', 'https://[::ffff:10.0.0.1]/x']) {
    assert.match(refused(url, SANDBOX), /private or link-local/, url);
  }
  accepted('https://127.0.0.1:8443/hook', SANDBOX);
  accepted('https://93.184.216.34/hook', SANDBOX);
});

test('given production, when the URL is the sandbox inbox, then it is not special', () => {
  assert.not.ok(checkWebhookUrl('http://127.0.0.1:3000/sandbox/webhook-inbox/abc123', { ...SANDBOX, production: true }).ok);
});

const resolver =
  (answers: Record<string, string[]>): Resolver =>
  async (host) => {
    const a = answers[host];
    if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

test('given production, when a hostname resolves to a private address, then resolving refuses it; a public one is answered to connect to', async () => {
  const r = resolver({ 'evil.example': ['10.1.2.3'], 'mixed.example': ['93.184.216.34', '127.0.0.1'], 'ok.example': ['93.184.216.34'], 'v6.example': ['::ffff:192.168.0.1'] });
  for (const host of ['evil.example', 'mixed.example', 'v6.example']) {
    try {
      await resolvePublicAddress(host, { production: true, resolver: r });
      assert.unreachable(host);
    } catch (e) {
      assert.instance(e, UnsafeWebhookAddressError);
      assert.match((e as Error).message, /private, loopback or link-local/);
    }
  }
  assert.equal(await resolvePublicAddress('ok.example', { production: true, resolver: r }), { address: '93.184.216.34', family: 4 });
  await resolvePublicAddress('nowhere.example', { production: true, resolver: r }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /does not resolve \(ENOTFOUND\)/),
  );
  await resolvePublicAddress('evil.example', { production: false, resolver: r }).then(
    () => assert.unreachable('the sandbox connects to loopback and public addresses only'),
    (e: Error) => assert.match(e.message, /10\.1\.2\.3, a private or link-local address/),
  );
  assert.equal(await resolvePublicAddress('evil.example', { production: false, resolver: r, sandboxInbox: true }), { address: '10.1.2.3', family: 4 }, 'the own inbox, wherever the service runs');
  assert.equal(await resolvePublicAddress('ok.example', { production: false, resolver: r }), { address: '93.184.216.34', family: 4 });
  assert.equal(await resolvePublicAddress('[::1]', { production: false, resolver: r }), { address: '::1', family: 6 });
});

test('given production, when a URL is assessed, then its name is resolved and a private answer is a problem, not a throw', async () => {
  const r = resolver({ 'evil.example': ['169.254.169.254'], 'ok.example': ['93.184.216.34'] });
  const bad = await assessWebhookUrl('https://evil.example/hook', { production: true, resolver: r });
  assert.equal(bad, { ok: false, problem: 'evil.example resolves to 169.254.169.254, a private, loopback or link-local address' });
  assert.ok((await assessWebhookUrl('https://ok.example/hook', { production: true, resolver: r })).ok);
  assert.ok((await assessWebhookUrl('https://evil.example/hook', { production: false, resolver: r })).ok, 'sandbox does not resolve');
});

test('isPublicAddress: garbage is not public', () => {
  for (const a of ['', 'example.com', '1.2.3', '::g', '1.2.3.4.5']) assert.not.ok(isPublicAddress(a), a);
  assert.ok(isPublicAddress('93.184.216.34'));
});

test.run();
