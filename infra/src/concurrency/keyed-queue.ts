/**
 * Runs tasks one at a time per key, in arrival order, inside this process. Commands on one stream queue here
 * instead of racing to append the same revision: each is decided on the state its predecessor left.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `task` once every earlier task of `key` has finished. When its turn has not come by `until` (epoch ms),
   * it gives up its place (later tasks still wait for the earlier ones) and throws `timeout()`.
   */
  async run<T>(key: string, task: () => Promise<T>, options: { until: number; timeout: () => Error }): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      if (!(await turnBy(previous, options.until))) throw options.timeout();
      return await task();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with tasks running or waiting (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}

const turnBy = (previous: Promise<void>, until: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))));
  return Promise.race([previous.then(() => true), late]).finally(() => clearTimeout(timer));
};
