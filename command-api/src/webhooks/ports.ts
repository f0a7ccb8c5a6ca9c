import type { WebhookEndpointRow } from '@cagnotte/read-models';

/**
 * What the endpoints API asks of the delivery side (command-api/src/webhooks/delivery.ts implements it): the routes
 * take it as a dependency, so they never pretend to deliver. Without one, POST …/test and …/recover are not served.
 */
export interface WebhookDeliveryScheduler {
  /** Stores a `webhook.test` event for the endpoint and delivers it now (signed like any delivery). */
  scheduleTest(endpoint: WebhookEndpointRow): Promise<{ eventId: string }>;
  /** Re-delivers every event of [since, until) that the endpoint matches: new attempts, the same `webhook-id`. */
  scheduleRecovery(endpoint: WebhookEndpointRow, since: Date, until: Date): Promise<{ scheduled: number }>;
}
