import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freeLoopbackPort } from '../src/embedded-postgres';

const root = resolve(__dirname, '../..');
/** Generous: a start compiles TypeScript on a shared, loaded machine. */
const START_DEADLINE_MS = 90_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A loopback port free at this moment (bound on 0, then released for a child process to take). */
export const freePort = freeLoopbackPort;

/**
 * The whole service (`scripts/src/start.ts`, the embedded default) as a child process that a crash spec can SIGKILL
 * and start again on the same port. It runs under node itself, not the tsx CLI, which would run the server in a
 * grandchild that SIGKILL does not reach.
 */
export class ChildServer {
  child: ChildProcess | null = null;
  starts = 0;
  /** The last 4,000 characters the server printed, for failure messages. */
  log = '';
  constructor(
    readonly port: number,
    private readonly env: Record<string, string> = {},
  ) {}

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts it and waits until /health answers. */
  async start(): Promise<void> {
    this.starts++;
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/src/start.ts'], {
      cwd: root,
      env: { ...process.env, PORT: String(this.port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (this.log = (this.log + String(d)).slice(-200_000)));
    child.stderr!.on('data', (d) => (this.log = (this.log + String(d)).slice(-200_000)));
    this.child = child;
    const deadline = Date.now() + START_DEADLINE_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${this.log}`);
      const ok = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
      if (ok) return;
      await sleep(150);
    }
    throw new Error(`the server did not start within ${START_DEADLINE_MS} ms: ${this.log}`);
  }

  /** Kills it (SIGKILL unless told otherwise) and waits for it to be gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}
