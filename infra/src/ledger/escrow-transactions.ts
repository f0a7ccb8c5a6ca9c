import { BASE_FEE, Claimant, Memo, Operation, TransactionBuilder, type Asset, type Transaction } from '@stellar/stellar-sdk';

// The escrow's own transactions, built pure (no ledger read, no clock): EscrowLedger builds them from what the
// ledger says, the money property spec from its in-memory ledger. One builder each, so both submit the same bytes.

/** XLM the platform gives an escrow account: its reserve (2 base + trustline + 2 signers = 2.5 XLM) plus fees. */
export const ESCROW_STARTING_XLM = '4';
/** Organiser and platform, weight 1 each; thresholds 2: neither alone moves anything (docs/escrow.md). */
export const ESCROW_SIGNER_WEIGHT = 1;
export const ESCROW_THRESHOLD = 2;

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** How long the setup transaction stays valid once built (the SDK's setTimeout: maxTime = now + this). */
export const ESCROW_SETUP_TIMEOUT_SECONDS = 300;

/** What the builders need of a source account: its id and sequence (an SDK Account, or Horizon's AccountResponse). */
type SourceAccount = ConstructorParameters<typeof TransactionBuilder>[0];

/**
 * The escrow's setup (docs/escrow.md, "Setup"), unsigned: the platform's account pays E's reserve, E trusts the
 * stablecoin, gets the organiser and the platform as weight-1 signers, and loses its master key (thresholds 2) in the
 * same transaction. The platform and E's derived key sign it. Pure: `platform`'s sequence is bumped, as the SDK does.
 */
export const escrowSetupTransaction = (input: {
  platform: SourceAccount;
  escrowAccount: string;
  organiserAccount: string;
  asset: Asset;
  networkPassphrase: string;
  /** Unix seconds. */
  maxTime: number;
}): Transaction => {
  const e = input.escrowAccount;
  return new TransactionBuilder(input.platform, { fee: String(Number(BASE_FEE) * 5), networkPassphrase: input.networkPassphrase, timebounds: { minTime: 0, maxTime: input.maxTime } })
    .addOperation(Operation.createAccount({ destination: e, startingBalance: ESCROW_STARTING_XLM }))
    .addOperation(Operation.changeTrust({ source: e, asset: input.asset }))
    .addOperation(Operation.setOptions({ source: e, signer: { ed25519PublicKey: input.organiserAccount, weight: ESCROW_SIGNER_WEIGHT } }))
    .addOperation(Operation.setOptions({ source: e, signer: { ed25519PublicKey: input.platform.accountId(), weight: ESCROW_SIGNER_WEIGHT } }))
    .addOperation(Operation.setOptions({ source: e, masterWeight: 0, lowThreshold: ESCROW_THRESHOLD, medThreshold: ESCROW_THRESHOLD, highThreshold: ESCROW_THRESHOLD }))
    .build();
};

/**
 * A buyer's deposit (docs/escrow.md, "Pay in"), unsigned: from `account`, one claimable balance of exactly `amount`,
 * claimable by the escrow before `reclaimAfter` and by the buyer from then on, bound to the reservation by its memo,
 * valid only until `validUntil`. Pure: `account`'s sequence is bumped, as the SDK does.
 */
export const depositTransaction = (input: {
  account: SourceAccount;
  source: string;
  escrowAccount: string;
  asset: Asset;
  amount: string;
  memoHash: string;
  reclaimAfter: Date;
  validUntil: Date;
  networkPassphrase: string;
}): Transaction => {
  const at = String(unix(input.reclaimAfter));
  return new TransactionBuilder(input.account, {
    fee: BASE_FEE,
    networkPassphrase: input.networkPassphrase,
    timebounds: { minTime: 0, maxTime: unix(input.validUntil) },
  })
    .addOperation(
      Operation.createClaimableBalance({
        asset: input.asset,
        amount: input.amount,
        claimants: [
          new Claimant(input.escrowAccount, Claimant.predicateBeforeAbsoluteTime(at)),
          new Claimant(input.source, Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime(at))),
        ],
      }),
    )
    .addMemo(Memo.hash(input.memoHash))
    .build();
};

/** What a settlement transaction did, for reconciliation: the stablecoin payments it made (per operation) and the balances it claimed. */
export const settlementEffectsOf = (
  tx: Transaction,
  successful: boolean,
  asset: { code: string; issuer: string },
): { successful: boolean; payments: Array<{ destination: string; amount: string }>; claimed: string[] } => {
  const payments: Array<{ destination: string; amount: string }> = [];
  const claimed: string[] = [];
  for (const op of tx.operations) {
    if (op.type === 'payment' && !op.asset.isNative() && op.asset.getCode() === asset.code && op.asset.getIssuer() === asset.issuer) {
      payments.push({ destination: op.destination, amount: op.amount });
    }
    if (op.type === 'claimClaimableBalance') claimed.push(op.balanceId);
  }
  return { successful, payments, claimed };
};
