/**
 * Compile-time checks of the typed methods (the root typecheck runs them): each `@ts-expect-error` fails the
 * typecheck if the call it marks stops being refused.
 */
import { createClient } from '../src';
import type { PathArgs } from '../src/operations';

export const typeChecks = async () => {
  const client = createClient({ baseUrl: 'http://127.0.0.1:1' });
  const created = await client.webhooks.create({ url: 'https://hooks.example.com', enabledEvents: ['*'] });
  const id: string = created.id;
  // @ts-expect-error an unknown field of the body
  await client.webhooks.create({ url: 'https://hooks.example.com', enabledEvents: ['*'], colour: 'red' });
  // @ts-expect-error the body is required
  await client.webhooks.create();
  // @ts-expect-error the path's id is required
  await client.webhooks.retrieve();
  const got = await client.webhooks.retrieve(id);
  // @ts-expect-error never the secret on a read
  void got.secret;
  // @ts-expect-error ordering is an enum
  await client.webhooks.update(id, { ordering: 'sometimes' });
  await client.webhooks.test(id, undefined, { idempotencyKey: 'my-key-123' });
  const deleted: undefined = await client.webhooks.del(id);
  for await (const endpoint of client.webhooks.list({ limit: 10 })) {
    const url: string = endpoint.url;
    void url;
  }
  // @ts-expect-error limit is a number
  client.webhooks.list({ limit: '10' });
  for await (const event of client.events.list({ types: 'reservation.paid' })) void event.type;
  return deleted;
};

// Paths with two parameters (the group-buy orders) take two strings before the body.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export const twoParams: Equal<PathArgs<'/v1/group-buys/{id}/orders/{orderId}/payment'>, [string, string]> = true;
export const noParam: Equal<PathArgs<'/v1/deals'>, []> = true;
