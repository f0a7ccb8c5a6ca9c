import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, type Logger } from '../logger';
import { createBaseApp } from './app';
import { formatTraceparent, parseTraceparent, requestContextFrom, validRequestId } from './request-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

const parser = suite('traceparent parser (W3C trace context)');

parser('given a valid version 00 header, when parsed, then its trace id, parent id and flags', () => {
  assert.equal(parseTraceparent(`00-${TRACE}-${PARENT}-01`), { version: '00', traceId: TRACE, parentId: PARENT, flags: '01' });
});

parser('given an invalid header, when parsed, then null (a new trace starts)', () => {
  for (const bad of [
    undefined,
    '',
    'garbage',
    `00-${'0'.repeat(32)}-${PARENT}-01`, // all-zero trace id
    `00-${TRACE}-${'0'.repeat(16)}-01`, // all-zero parent id
    `ff-${TRACE}-${PARENT}-01`, // version ff is invalid
    `00-${TRACE.toUpperCase()}-${PARENT}-01`, // uppercase hex
    `00-${TRACE}-${PARENT}-01-extra`, // version 00 has four fields exactly
    `00-${TRACE.slice(1)}-${PARENT}-01`, // short trace id
    `00-${TRACE}-${PARENT}-1`, // short flags
    `0-${TRACE}-${PARENT}-01`,
    `00_${TRACE}_${PARENT}_01`,
  ]) {
    assert.is(parseTraceparent(bad), null, String(bad));
  }
});

parser('given a later version with more fields, when parsed, then its first four are read', () => {
  assert.equal(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-comes-next`), { version: 'cc', traceId: TRACE, parentId: PARENT, flags: '01' });
});

parser('when the answer is formatted, then version 00, the trace, the new span, the sampled bit only', () => {
  assert.is(formatTraceparent(TRACE, 'b7ad6b7169203331', '03'), `00-${TRACE}-b7ad6b7169203331-01`);
  assert.is(formatTraceparent(TRACE, 'b7ad6b7169203331'), `00-${TRACE}-b7ad6b7169203331-00`);
});

parser('given a valid traceparent, when a request context is made, then the trace continues with a new span', () => {
  const { context, traceparent } = requestContextFrom({ traceparent: `00-${TRACE}-${PARENT}-01` });
  assert.is(context.traceId, TRACE);
  assert.is(context.parentSpanId, PARENT);
  assert.match(context.spanId, /^[0-9a-f]{16}$/);
  assert.is.not(context.spanId, PARENT);
  assert.is(traceparent, `00-${TRACE}-${context.spanId}-01`);
});

parser('given an invalid traceparent, when a request context is made, then a new trace', () => {
  const { context, traceparent } = requestContextFrom({ traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` });
  assert.match(context.traceId, /^[0-9a-f]{32}$/);
  assert.is.not(context.traceId, '0'.repeat(32));
  assert.is(context.parentSpanId, undefined);
  assert.is(parseTraceparent(traceparent)?.traceId, context.traceId);
});

parser.run();

const ids = suite('X-Request-Id validator');

ids('given 1 to 128 visible ASCII characters, then kept', () => {
  for (const good of ['a', 'req-42', 'x'.repeat(128), 'abc:DEF/123_+=!~', '01J9ZQ4N5W2Y3X8K7V6T5R4P3M', '!"#$%&\'()*+,-./~']) assert.is(validRequestId(good), good, good);
});

ids('given an empty, too long, spaced, control or non-ASCII value, then refused', () => {
  for (const bad of [undefined, '', 'x'.repeat(129), 'has space', 'tab\there', 'line\nbreak', 'é', 'caf\u00e9', '\u0000', 'del\u007f', ['a', 'b'], 42]) {
    assert.is(validRequestId(bad), null, JSON.stringify(bad));
  }
});

ids('when a request context is made, then a malformed id is replaced by a fresh UUID and a good one kept', () => {
  assert.is(requestContextFrom({ 'x-request-id': 'partner-7f3a' }).context.requestId, 'partner-7f3a');
  const fresh = requestContextFrom({ 'x-request-id': 'x'.repeat(500) }).context.requestId;
  assert.match(fresh, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

ids.run();

/** A logger whose lines a spec reads back. */
const captured = (): { logger: Logger; lines: Record<string, unknown>[] } => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('debug', 'spec', sink), lines };
};

const logs = suite('the base app: every log line of a request carries its ids');
let server: Server;
let base = '';
let sink: ReturnType<typeof captured>;

logs.before(async () => {
  sink = captured();
  const app = createBaseApp({ logger: sink.logger, bodyLimitBytes: 10_000, trustProxy: false }, (a) => {
    // A handler logs with the process's logger (no request passed down), after the JSON body was read off the socket.
    a.post('/echo', async (req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      sink.logger.warn({ got: req.body as unknown }, 'inside the handler');
      res.json({ ok: true });
    });
    a.get('/boom', () => {
      throw new Error('kaput');
    });
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

logs.after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const linesOf = async (requestId: string, count: number) => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = sink.lines.filter((l) => l.requestId === requestId);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
};

logs('given a JSON body and a traceparent, when a handler logs, then its line and the access line carry the request id and the trace', async () => {
  const res = await fetch(`${base}/echo?token=s3cret`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'unit-echo-1', traceparent: `00-${TRACE}-${PARENT}-01`, authorization: 'Bearer hush' },
    body: JSON.stringify({ a: 1 }),
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-request-id'), 'unit-echo-1');
  const answered = parseTraceparent(res.headers.get('traceparent'));
  assert.is(answered?.traceId, TRACE);
  const lines = await linesOf('unit-echo-1', 2);
  const inside = lines.find((l) => l.msg === 'inside the handler');
  assert.ok(inside, 'the handler’s line carries the request id');
  assert.is(inside!.traceId, TRACE);
  assert.is(inside!.spanId, answered?.parentId);
  const access = lines.find((l) => l.msg === 'request');
  assert.ok(access, 'an access line');
  assert.is(access!.level, 30, 'at info');
  assert.is(access!.method, 'POST');
  assert.is(access!.route, '/echo');
  assert.is(access!.status, 200);
  assert.type(access!.ms, 'number');
  assert.is(access!.traceId, TRACE);
  const text = JSON.stringify(lines);
  assert.not.ok(text.includes('s3cret'), 'no query string');
  assert.not.ok(text.includes('hush'), 'no Authorization header');
});

logs('given a handler that throws, when the error is logged, then the error line carries the request id', async () => {
  const res = await fetch(`${base}/boom`, { headers: { 'x-request-id': 'unit-boom-1' } });
  assert.is(res.status, 500);
  assert.is(((await res.json()) as { requestId?: string }).requestId, 'unit-boom-1');
  const lines = await linesOf('unit-boom-1', 2);
  const error = lines.find((l) => l.msg === 'unhandled error');
  assert.ok(error, 'the error line carries the request id');
  assert.is(error!.level, 50);
  assert.match(String(error!.traceId), /^[0-9a-f]{32}$/);
});

logs.run();
