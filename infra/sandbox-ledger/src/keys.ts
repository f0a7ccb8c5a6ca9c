import { Keypair } from '@stellar/stellar-sdk';
import { sandboxSeed, type SandboxRole } from './seeds';

export { SANDBOX_PASSPHRASE_DEFAULT } from './seeds';

export interface SandboxKeys {
  /** Holds the genesis supply (100 billion XLM) and funds friendbot accounts, as on Stellar: Keypair.master(passphrase). */
  root: Keypair;
  /** Issues the stablecoin. */
  issuer: Keypair;
  /** Receives platform fees; trusts the stablecoin from genesis. */
  platform: Keypair;
  /** Signs SEP-10 style link challenges; not an account on the ledger. */
  signing: Keypair;
  /** Signs the event-log anchors (ANCHOR_SIGNING_SECRET in sandbox mode); funded by friendbot on first use. */
  anchor: Keypair;
}

const derived = (passphrase: string, role: SandboxRole): Keypair => Keypair.fromRawEd25519Seed(sandboxSeed(passphrase, role));

/** Deterministic sandbox keys: anyone who knows the passphrase can derive them, which is the point of a sandbox. */
export function sandboxKeys(passphrase: string): SandboxKeys {
  return {
    root: Keypair.master(passphrase),
    issuer: derived(passphrase, 'issuer'),
    platform: derived(passphrase, 'platform'),
    signing: derived(passphrase, 'signing'),
    anchor: derived(passphrase, 'anchor'),
  };
}
