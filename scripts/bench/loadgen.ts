import http from 'node:http';
import { latency, nowMs, type Latency } from './lib';

/** A loopback HTTP load generator on keep-alive sockets. Only 127.0.0.1; every run is bounded in count and time. */

export interface Target {
  port: number;
  /** Paths to cycle through, e.g. several pool ids. */
  paths: string[];
  headers: Record<string, string>;
}

export interface LoadResult {
  sent: number;
  ok: number;
  errors: number;
  /** Non-2xx statuses and socket errors, by kind. */
  errorKinds: Record<string, number>;
  seconds: number;
  achievedRps: number;
  latency: Latency;
  /** Open loop only: how late the generator itself sent requests against their schedule (its own jitter). */
  sendLag?: Latency;
}

const REQUEST_TIMEOUT_MS = 5_000;

const once = (agent: http.Agent, t: Target, path: string): Promise<{ ok: boolean; kind: string }> =>
  new Promise((resolve) => {
    const req = http.request({ agent, host: '127.0.0.1', port: t.port, path, method: 'GET', headers: t.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ok: res.statusCode === 200, kind: String(res.statusCode) }));
      res.on('error', (e) => resolve({ ok: false, kind: e.message }));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ ok: false, kind: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end();
  });

const collect = () => {
  const samples: number[] = [];
  const errorKinds: Record<string, number> = {};
  let ok = 0;
  return {
    record(r: { ok: boolean; kind: string }, ms: number) {
      samples.push(ms);
      if (r.ok) ok++;
      else errorKinds[r.kind] = (errorKinds[r.kind] ?? 0) + 1;
    },
    result(seconds: number): LoadResult {
      const errors = samples.length - ok;
      return { sent: samples.length, ok, errors, errorKinds, seconds, achievedRps: ok / seconds, latency: latency(samples) };
    },
  };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Open loop: requests leave on a fixed schedule whatever the server does. Latency is counted from the
 * scheduled send time, so a stalled server is charged for the queue it causes (no coordinated omission).
 */
export const openLoop = async (t: Target, rate: number, seconds: number): Promise<LoadResult> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const c = collect();
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const inFlight: Promise<void>[] = [];
  const lags: number[] = [];
  const started = nowMs();
  let sent = 0;
  while (sent < total) {
    const due = started + sent * interval;
    const now = nowMs();
    if (now < due) {
      await sleep(Math.max(0, due - now - 0.2));
      continue;
    }
    const path = t.paths[sent % t.paths.length]!;
    lags.push(now - due);
    inFlight.push(once(agent, t, path).then((r) => c.record(r, nowMs() - due)));
    sent++;
  }
  await Promise.all(inFlight);
  // Achieved rate over the scheduled window: the last responses arriving late lower it.
  const elapsed = (nowMs() - started) / 1000;
  agent.destroy();
  return { ...c.result(Math.max(elapsed, seconds)), sendLag: latency(lags) };
};

/** Closed loop: `concurrency` clients, each sending its next request when the last one answered. */
export const closedLoop = async (t: Target, concurrency: number, seconds: number): Promise<LoadResult> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const c = collect();
  const started = nowMs();
  const deadline = started + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nowMs() < deadline) {
        const path = t.paths[n++ % t.paths.length]!;
        const sentAt = nowMs();
        const r = await once(agent, t, path);
        c.record(r, nowMs() - sentAt);
      }
    }),
  );
  const elapsed = (nowMs() - started) / 1000;
  agent.destroy();
  return c.result(elapsed);
};
