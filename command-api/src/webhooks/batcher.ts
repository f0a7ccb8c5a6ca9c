/**
 * Gathers the calls that arrive while the event loop turns into one call of `run` (one SQL statement for many
 * delivery attempts instead of one each): under load, the attempts that finish together are claimed or recorded
 * together, one round trip and one commit for the lot; at idle an item waits one turn of the loop (setImmediate).
 *
 * - At most `maxBatch` items per call, at most `maxInFlight` calls at a time (the others wait and grow the next batch).
 * - `run` answers one result per item, in order. A call that fails is tried again one item at a time, so one poisoned
 *   item (a row that breaks a constraint) fails alone and the others of its batch go on as if sent one by one.
 */
export interface MicroBatcherOptions {
  maxBatch: number;
  maxInFlight: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

export class MicroBatcher<I, O> {
  private pending: Array<Waiting<I, O>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly o: MicroBatcherOptions,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.pending.length === 0 || this.inFlight >= this.o.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.pending.length > 0 && this.inFlight < this.o.maxInFlight) void this.flush(this.pending.splice(0, this.o.maxBatch));
    });
  }

  private async call(items: I[]): Promise<O[]> {
    const out = await this.run(items);
    if (out.length !== items.length) throw new Error(`a batch of ${items.length} answered ${out.length} results`);
    return out;
  }

  private async flush(batch: Array<Waiting<I, O>>) {
    this.inFlight++;
    try {
      try {
        const out = await this.call(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(out[i]!));
      } catch (e) {
        if (batch.length === 1) batch[0]!.reject(e);
        else
          for (const w of batch) {
            await this.call([w.item]).then(
              (o) => w.resolve(o[0]!),
              (err: unknown) => w.reject(err),
            );
          }
      }
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
