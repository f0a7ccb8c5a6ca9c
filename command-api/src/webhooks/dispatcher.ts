import { WebhookKeyring, webhookEncryptionKey, type Services } from '@cagnotte/infra';
import { ConsumerGroup } from '@cagnotte/read-models';
import { WEBHOOK_DELIVERY_QUEUE, enqueueDispatched, insertDeliveries, sweepOverdue, type DeliveryJob } from './deliveries';
import { makeDeliveryScheduler, runDeliveryAttempt, type WebhookDeliveryDeps } from './delivery';
import { DEFAULT_RETRY_SCHEDULE_MS } from './outcome';
import { SANDBOX_INBOX_PATH } from './inbox';

/**
 * Webhook delivery in a process (docs/webhooks.md): the dispatcher (the `webhooks` consumer group of the public feed:
 * it records one pending delivery per matching (endpoint, event) in the group's transaction, then queues their first
 * attempts), the delivery workers (one attempt per job), and the sweeper (re-queues what is overdue). Several processes
 * may run all three: the group takes one batch at a time, the queue runs each key once.
 */
export const WEBHOOKS_CONSUMER_GROUP = 'webhooks';

export interface WebhookDeliveryOptions {
  /** The consumer group (default `webhooks`; specs use one of their own). */
  group?: string;
  batchSize?: number;
  concurrency?: number;
  /** How often the sweeper looks for overdue deliveries, and how overdue they must be (ms). */
  sweepEveryMs?: number;
  sweepGraceMs?: number;
  /** The group's polling (ms): LISTEN public_events wakes it sooner. */
  pollMs?: number;
  maxPollMs?: number;
}

/** Starts the dispatcher, the delivery workers and the sweeper; answers the stop function. */
export const startWebhookDelivery = (deps: WebhookDeliveryDeps, options: WebhookDeliveryOptions = {}): (() => Promise<void>) => {
  const group = new ConsumerGroup(deps.knex, options.group ?? WEBHOOKS_CONSUMER_GROUP, { pollMs: options.pollMs ?? 20, maxPollMs: options.maxPollMs ?? 1_000 });
  const stop = new AbortController();
  const dispatching = group.run(
    async (events, trx) => {
      const dispatched = await insertDeliveries(trx, events, deps.production);
      // Queued after the commit, so an attempt always finds its row; a process that dies in between leaves rows the sweeper queues.
      return async () => {
        await enqueueDispatched(deps.knex, deps.jobs, dispatched).catch((e: Error) => deps.logger.warn({ err: e.message }, 'webhooks: queueing deliveries failed; the sweeper will'));
      };
    },
    { batchSize: options.batchSize ?? 500, signal: stop.signal, onError: (e) => deps.logger.warn({ err: (e as Error).message }, 'webhooks: a dispatch batch failed; it is tried again') },
  );
  const worker = deps.jobs.startWorker<DeliveryJob>(WEBHOOK_DELIVERY_QUEUE, async (job) => void (await runDeliveryAttempt(deps, job)), {
    concurrency: options.concurrency ?? 128,
  });
  const sweepGraceMs = options.sweepGraceMs ?? 60_000;
  const sweeper = setInterval(() => {
    void sweepOverdue(deps.knex, deps.jobs, sweepGraceMs).catch((e: Error) => deps.logger.warn({ err: e.message }, 'webhooks: sweep failed'));
  }, options.sweepEveryMs ?? 30_000);
  sweeper.unref();
  return async () => {
    clearInterval(sweeper);
    stop.abort();
    await dispatching;
    await worker.close();
  };
};

/** The delivery dependencies from the process's services (what `pnpm start` and command-api's main run). */
export const webhookDeliveryDeps = (services: Services): WebhookDeliveryDeps => ({
  knex: services.knex,
  jobs: services.jobs,
  keyring: new WebhookKeyring(services.knex, webhookEncryptionKey(services.config.WEBHOOK_ENCRYPTION_KEY)),
  logger: services.logger,
  production: services.config.APP_ENV === 'production',
  sandboxInboxBase: () => (services.self.url ? `${services.self.url}${SANDBOX_INBOX_PATH}` : undefined),
  timeoutMs: services.config.WEBHOOK_TIMEOUT_MS,
  schedule: services.config.WEBHOOK_RETRY_SCHEDULE_MS ?? DEFAULT_RETRY_SCHEDULE_MS,
  clock: () => new Date(),
});

/** Starts webhook delivery in a process that runs background work. */
export const startWebhooks = (services: Services): (() => Promise<void>) =>
  startWebhookDelivery(webhookDeliveryDeps(services), { concurrency: services.config.WEBHOOK_DELIVERY_CONCURRENCY });

export { makeDeliveryScheduler };
