import client from 'prom-client';

/** One Horizon call of the ledger gateway, as its HTTP client saw it. */
export interface LedgerCall {
  method: string;
  /** The Horizon path with its ids as `:id` (`accounts/:id`, `transactions`): a bounded set. */
  endpoint: string;
  /** `ok`, `not_found`, `client_error` (4xx), `server_error` (5xx) or `network_error` (no answer). */
  outcome: string;
  seconds: number;
}

/**
 * The counters the process's adapters feed while they work (the ledger client, the HTTP kit), one set per process
 * (`Services.metrics`); every API server of the process shows them at /metrics beside its own request series.
 * Created without a registry: `registerInto` adds them to a server's.
 */
export class OperationalMetrics {
  readonly ledgerCallDuration = new client.Histogram({
    name: 'ledger_call_duration_seconds',
    help: 'Latency of the ledger gateway’s Horizon calls (the sandbox network’s included), by endpoint and outcome',
    labelNames: ['method', 'endpoint', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [],
  });

  readonly rateLimitRefusals = new client.Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with a 429 (rate_limited), by limiter',
    labelNames: ['limiter'],
    registers: [],
  });

  readonly idempotentReplays = new client.Counter({
    name: 'idempotent_replays_total',
    help: 'Requests answered with the kept answer of an earlier request with the same Idempotency-Key, by route',
    labelNames: ['route'],
    registers: [],
  });

  /** Adds these series to a registry (each registry once). */
  registerInto(registry: client.Registry): void {
    registry.registerMetric(this.ledgerCallDuration);
    registry.registerMetric(this.rateLimitRefusals);
    registry.registerMetric(this.idempotentReplays);
  }

  readonly ledgerCall = (call: LedgerCall): void => {
    this.ledgerCallDuration.observe({ method: call.method, endpoint: call.endpoint, outcome: call.outcome }, call.seconds);
  };

  readonly rateLimited = (limiter: string): void => {
    this.rateLimitRefusals.inc({ limiter });
  };

  readonly idempotentReplay = (route: string): void => {
    this.idempotentReplays.inc({ route });
  };
}
