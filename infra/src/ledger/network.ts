// Which Stellar network a passphrase names, and the sandbox's key seeds. No dependency but node:crypto: the operator
// CLI's `ledger info` reads them without loading the Stellar SDK.

export const PUBLIC_NETWORK_PASSPHRASE = 'Public Global Stellar Network ; September 2015';
export const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';

export type LedgerNetwork = 'public' | 'testnet' | 'sandbox';

export const networkOf = (passphrase: string): LedgerNetwork =>
  passphrase === PUBLIC_NETWORK_PASSPHRASE ? 'public' : passphrase === TESTNET_PASSPHRASE ? 'testnet' : 'sandbox';

/** The sandbox network's key seeds (sha256 of `<passphrase>|<role>`), from the one module its keys are made from. */
export { sandboxSeed, type SandboxRole } from '@cagnotte/sandbox-ledger/src/seeds';
