import { createHash } from 'node:crypto';

// The sandbox network's key seeds, with no dependency but node:crypto: the keys (./keys.ts) are made from them, and
// the operator CLI's `ledger info` derives the public keys from them without loading the Stellar SDK.

/** The sandbox network's passphrase unless STELLAR_NETWORK_PASSPHRASE says otherwise. */
export const SANDBOX_PASSPHRASE_DEFAULT = 'Cagnotte Sandbox Network ; November 2026';

export type SandboxRole = 'issuer' | 'platform' | 'signing' | 'anchor';

/** The raw ed25519 seed of a sandbox role: sha256 of `<passphrase>|<role>`. */
export const sandboxSeed = (passphrase: string, role: SandboxRole): Buffer => createHash('sha256').update(`${passphrase}|${role}`, 'utf8').digest();
