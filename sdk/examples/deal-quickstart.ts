/**
 * From an API key to a released deal, on the sandbox network: the escrow between your buyer and your seller, where
 * the money sits on the ledger (not with you, not with Cagnotte) until the seller is paid.
 *
 *   CAGNOTTE_URL=http://127.0.0.1:3000 CAGNOTTE_API_KEY=sk_test_… npx tsx sdk/examples/deal-quickstart.ts
 *
 * Each step is one SDK call; what a party signs, it signs with its own key, here held by this script because the
 * sandbox made the wallets. In production each party's wallet signs on its side and you only pass the XDR along.
 * CI type-checks this file (the root tsconfig includes sdk/examples) and runs it (scripts/e2e/sdk-quickstart.e2e.spec.ts).
 */
import { CagnotteError, createClient, type CagnotteClient, type SandboxWallet } from '@cagnotte/sdk';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the comment at the top of this file)`);
  return value;
};

/** An end customer of yours: their account, and a sandbox wallet of their own linked to it by signing a challenge. */
const customer = async (client: CagnotteClient, name: string, asset: { code: string; issuer: string }, fund: boolean): Promise<{ id: string; wallet: SandboxWallet }> => {
  const account = await client.accounts.create({ type: 'individual', name, email: `${name.toLowerCase()}.${Date.now()}@example.com` });
  // A new key pair on the sandbox network with lumens and a trustline to the stablecoin; `fund` adds 1,000 of it.
  const wallet = await client.sandbox.createWallet({ asset, fund });
  // The holder proves the wallet is theirs: they sign the challenge's hash with their key, and it is linked.
  const challenge = await client.accounts.walletChallenge(account.id, { publicKey: wallet.publicKey });
  await client.accounts.linkWallet(account.id, { publicKey: wallet.publicKey, signature: wallet.signHash(challenge.hash) });
  console.log(`account ${account.id} (${name}) with wallet ${wallet.publicKey}`);
  return { id: account.id, wallet };
};

const main = async () => {
  const client = createClient({ baseUrl: required('CAGNOTTE_URL'), apiKey: required('CAGNOTTE_API_KEY') });
  // The sandbox's stablecoin, which the wallets made here trust (GET /v1/ledger: public).
  const { asset } = await client.ledger.retrieve();

  // 1. Your two customers: a buyer with money, a seller.
  const buyer = await customer(client, 'Bea', asset, true);
  const seller = await customer(client, 'Sam', asset, false);

  // 2. The deal: what is sold, and when the money may go (once the buyer accepts, or 3 days after delivery).
  const deal = await client.deals.create({
    buyer: buyer.id,
    seller: seller.id,
    currency: 'EUR',
    items: [{ description: 'Vintage road bike', quantity: 1, unitAmount: '120.00' }],
    releaseRule: 'on_acceptance',
    inspectionDays: 3,
    metadata: { order: 'quickstart-1' },
  });
  console.log(`deal ${deal.id} ${deal.status}: ${deal.amount} ${deal.currency}`);

  // 3. The buyer funds it: the service builds the deposit, the buyer signs it in their wallet, you submit it.
  const deposit = await client.deals.fund(deal.id);
  const funded = await client.deals.fundSubmit(deal.id, { signedXdr: buyer.wallet.signXdr(deposit.xdr) });
  console.log(`deal ${funded.id} ${funded.status}: escrow ${funded.escrow?.account}`);

  // 4. The seller delivers, the buyer accepts.
  await client.deals.deliver(deal.id, { note: 'Handed over in Lyon' });
  const accepted = await client.deals.accept(deal.id, {});
  console.log(`deal ${accepted.id} ${accepted.status}`);

  // 5. The release: the escrow pays out only with the seller's cosignature on both of its transactions.
  const settlement = await client.deals.release(deal.id, {});
  const released = await client.deals.releaseSubmit(deal.id, {
    settlementId: settlement.id,
    signedXdrs: [seller.wallet.signXdr(settlement.lock.xdr), seller.wallet.signXdr(settlement.release.xdr)],
  });
  for (const payout of released.payouts ?? []) console.log(`payout ${payout.role} ${payout.amount}`);
  const sellerAccount = await client.accounts.retrieve(seller.id);
  console.log(`seller's wallet holds ${sellerAccount.balances.find((b) => b.currency === 'EUR')?.available ?? '0.00'} EUR`);
  console.log(`released ${released.id} ${released.status}`);
};

main().catch((error: unknown) => {
  // A refusal is a CagnotteError: its status, stable code and request id say what and where.
  if (error instanceof CagnotteError) console.error(`refused: ${error.status} ${error.code} ${error.message} (request ${error.requestId})`);
  else console.error(error);
  process.exit(1);
});
