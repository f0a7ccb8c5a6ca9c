import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { BASE_FEE, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { formatAmount, parseAmount } from '@cagnotte/domain';
import { EscrowLedger, createSandboxHorizonRouter, createServices, loadConfig, planSettlement, type Services } from '@cagnotte/infra';
import { fmtMs, fmtRate, freshDatabase, nowMs, table, type SummaryRow } from './lib';

/**
 * The escrow's settlement on the sandbox network (persisted in PostgreSQL, real signatures, stellar-core's rules):
 * `deposits` buyers' claimable balances into one escrow, then the organiser's settlement of all of them, planned
 * (pure) and applied round by round (lock + release). Beside a baseline of the same run: a plain payment, submitted
 * and applied on the same network. Conservation is checked: what the rounds paid out equals what was deposited.
 */
export interface SettlementBenchOptions {
  url: string;
  deposits: number;
}

const DEPOSIT = '12.50';

export const runSettlement = async (o: SettlementBenchOptions): Promise<{ rows: Array<Omit<SummaryRow, 'part'> & { part: 'settlement' }>; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const config = loadConfig({ ...process.env, DATABASE_URL: o.url, LOG_LEVEL: 'silent', STELLAR_NETWORK_PASSPHRASE: `Cagnotte settlement bench ${randomUUID()}` });
  const services: Services = await createServices(config, { migrate: false });
  const app = express();
  app.use('/sandbox/horizon', createSandboxHorizonRouter(services.sandboxLedger!));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  services.self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const ledger = services.ledger;
    const escrow = new EscrowLedger(ledger);
    const horizon = ledger.server;
    const passphrase = config.STELLAR_NETWORK_PASSPHRASE;
    const funded = async (stablecoin: boolean): Promise<Keypair> => {
      const kp = Keypair.random();
      await horizon.friendbot(kp.publicKey()).call();
      const trust = new TransactionBuilder(await horizon.loadAccount(kp.publicKey()), { fee: BASE_FEE, networkPassphrase: passphrase })
        .addOperation(Operation.changeTrust({ asset: ledger.asset }))
        .setTimeout(0)
        .build();
      trust.sign(kp);
      await horizon.submitTransaction(trust);
      if (stablecoin) await horizon.friendbot(kp.publicKey()).call();
      return kp;
    };
    const organiser = await funded(true);
    const opened = await escrow.openEscrow({ poolId: randomUUID(), organiserAccount: organiser.publicKey() });
    const reclaimAfter = new Date(Date.now() + 30 * 86_400_000);
    reclaimAfter.setMilliseconds(0);

    // Buyers: few accounts, many deposits each (each deposit is one transaction from its buyer).
    const buyers = await Promise.all(Array.from({ length: Math.min(20, o.deposits) }, () => funded(true)));
    const items: Array<{ ref: string; balanceId: string; amount: bigint; refundTo: string; payouts: Array<{ destination: string; amount: bigint }> }> = [];
    const depositStart = nowMs();
    for (let i = 0; i < o.deposits; i++) {
      const buyer = buyers[i % buyers.length]!;
      const built = await escrow.buildDeposit({ source: buyer.publicKey(), escrowAccount: opened.accountId, amount: DEPOSIT, memoHash: randomUUID().replace(/-/g, '').padEnd(64, '0'), reclaimAfter, validUntil: new Date(Date.now() + 3_600_000) });
      const tx = TransactionBuilder.fromXDR(built.xdr, passphrase) as Transaction;
      tx.sign(buyer);
      await escrow.submitSigned(tx);
      const amount = parseAmount(DEPOSIT);
      const fee = amount / 40n; // 2.5 %
      items.push({ ref: `r${i}`, balanceId: built.balanceId, amount, refundTo: buyer.publicKey(), payouts: [{ destination: organiser.publicKey(), amount: amount - fee }, { destination: ledger.settings.platformAccount, amount: fee }] });
    }
    const depositMs = nowMs() - depositStart;

    const state = await escrow.escrowState(opened.accountId);
    const now = Math.floor(Date.now() / 1000);
    const planStart = nowMs();
    const rounds = planSettlement({
      networkPassphrase: passphrase,
      asset: ledger.asset,
      escrowAccount: opened.accountId,
      escrowSequence: state.sequence,
      platform: ledger.settings.platformAccount,
      strayBalance: 0n,
      strayReturns: [],
      hasTrustline: state.hasTrustline,
      items,
      final: true,
      releaseUntil: now + 3_600,
      recoveryFrom: now + 3_601,
      recoveryUntil: now + 7_200,
    });
    const planMs = nowMs() - planStart;

    const before = { organiser: await balanceOf(escrow, organiser.publicKey()), platform: await balanceOf(escrow, ledger.settings.platformAccount) };
    const roundMs: number[] = [];
    const applyStart = nowMs();
    for (const r of rounds) {
      const t = nowMs();
      const lock = escrow.platformSign(r.lock);
      lock.sign(organiser);
      await escrow.submitSigned(lock);
      r.release.sign(organiser);
      await escrow.submitSigned(r.release);
      roundMs.push(nowMs() - t);
    }
    const applyMs = nowMs() - applyStart;
    const paidOut = (await balanceOf(escrow, organiser.publicKey())) - before.organiser + ((await balanceOf(escrow, ledger.settings.platformAccount)) - before.platform);
    const deposited = items.reduce((s, i) => s + i.amount, 0n);

    // Baseline: a plain payment of the stablecoin, submitted and applied, on the same network.
    const payer = buyers[0]!;
    const baselineStart = nowMs();
    const BASELINE = 50;
    for (let i = 0; i < BASELINE; i++) {
      const tx = new TransactionBuilder(await horizon.loadAccount(payer.publicKey()), { fee: BASE_FEE, networkPassphrase: passphrase })
        .addOperation(Operation.payment({ destination: organiser.publicKey(), asset: ledger.asset, amount: '0.01' }))
        .setTimeout(0)
        .build();
      tx.sign(payer);
      await escrow.submitSigned(tx);
    }
    const paymentMs = (nowMs() - baselineStart) / BASELINE;

    const perRound = applyMs / rounds.length;
    console.log('\n## Settlement (sandbox network, PostgreSQL-backed)');
    console.log(
      table(
        ['measure', 'result'],
        [
          ['deposits', `${o.deposits} from ${buyers.length} buyers: ${fmtRate((o.deposits * 1000) / depositMs)} (${fmtMs(depositMs / o.deposits)} each, built + signed + applied)`],
          ['plan (pure)', `${rounds.length} round(s) for ${items.length} deposits in ${fmtMs(planMs)}`],
          ['apply', `${fmtMs(applyMs)} in all: ${fmtMs(perRound)} per round (lock + release), ${fmtRate((items.length * 1000) / applyMs, ' deposits/s')}`],
          ['baseline: a plain payment', `${fmtMs(paymentMs)} each (load, sign, submit, applied)`],
          ['conservation', `${formatAmount(deposited)} deposited, ${formatAmount(paidOut)} paid out${deposited === paidOut ? ' (equal)' : ' (DIFFERENT)'}`],
        ],
      ),
    );
    return {
      rows: [
        { part: 'settlement', metric: `settle ${items.length} deposits (${rounds.length} rounds)`, measured: fmtMs(applyMs), baseline: `plain payment ${fmtMs(paymentMs)}`, target: '', pass: deposited === paidOut ? null : false, raw: { applyMs, rounds: rounds.length } },
        { part: 'settlement', metric: 'settlement round (lock + release)', measured: fmtMs(perRound), baseline: `${(perRound / paymentMs).toFixed(1)}× a payment`, target: '', pass: null, raw: { roundMs } },
      ],
      details: { deposits: o.deposits, buyers: buyers.length, depositMs, planMs, applyMs, roundMs, paymentMs, deposited: formatAmount(deposited), paidOut: formatAmount(paidOut) },
    };
  } finally {
    server.close();
    await services.close();
  }
};

const balanceOf = async (escrow: EscrowLedger, account: string): Promise<bigint> => {
  const state = await escrow.escrowState(account);
  return state.strayBalance;
};
