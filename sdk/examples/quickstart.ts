/**
 * The README's quickstart: a webhook endpoint for your back office, its deliveries verified, the endpoints listed
 * page after page, an error read. CI type-checks this file (the root tsconfig includes sdk/examples).
 *
 *   CAGNOTTE_URL=http://127.0.0.1:3000 CAGNOTTE_TOKEN=… npx tsx sdk/examples/quickstart.ts
 */
import { createServer } from 'node:http';
import { CagnotteError, createClient, verifyWebhook } from '@cagnotte/sdk';

const main = async () => {
  const client = createClient({
    baseUrl: process.env.CAGNOTTE_URL ?? 'http://127.0.0.1:3000',
    // An API key (sk_test_…) or a signed-in user's session token.
    apiKey: process.env.CAGNOTTE_API_KEY,
    sessionToken: process.env.CAGNOTTE_TOKEN,
    tenant: process.env.CAGNOTTE_TENANT,
  });

  // Create an endpoint: the secret is shown once, keep it.
  const endpoint = await client.webhooks.create({
    url: 'https://hooks.example.com/cagnotte',
    enabledEvents: ['reservation.*', 'payout.settled'],
    ordering: 'per_subject',
  });
  const secret = endpoint.secret;
  if (!secret) throw new Error('a creation replayed with the same Idempotency-Key answers no secret: rotate it');
  console.log('created', endpoint.id, endpoint.status);

  // Every endpoint, page after page.
  for await (const each of client.webhooks.list({ limit: 50 })) console.log(each.id, each.url, each.enabledEvents.join(','));

  // A refusal is a CagnotteError with the API's code, the field at fault and the request id.
  try {
    await client.webhooks.retrieve('we_00000000000000000000000000000000');
  } catch (error) {
    if (!(error instanceof CagnotteError)) throw error;
    console.log(error.status, error.code, error.param, error.requestId);
  }

  // Your receiver: verify each delivery on the raw body before trusting it.
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = verifyWebhook<{ id: string; type: string; data: unknown }>(Buffer.concat(chunks), req.headers, secret);
        console.log('event', event.type, event.id);
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  }).listen(4242);

  await client.webhooks.test(endpoint.id);
  await client.webhooks.update(endpoint.id, { description: 'back office' });
};

void main();
