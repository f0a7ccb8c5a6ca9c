/**
 * The server-authoritative terms a buyer accepts when signing a reservation: recorded like a mandate (version and
 * sha256 of the text). A new wording is a new version. The hash is written out so this module stays pure data; a
 * unit spec recomputes it from the text.
 */
export const RESERVATION_TERMS = {
  version: '2026-11',
  text: 'I reserve these units (or pledge this amount) in this pool. My payment goes into a claimable balance on the Stellar ledger that only the pool’s escrow account can claim until the reclaim time shown, and that I alone can take back from then on. The escrow account is cosigned by the organiser and the platform: neither can move my money alone. If the pool succeeds the funds are released to the seller under the pool’s rules; if it fails or my reservation no longer holds, my money is returned. An unpaid reservation expires at the time shown and frees its units.',
  hash: '8df361820505210f6141666d81c76eef7657d2491da8cea218daf77436bd4323',
} as const;

export const currentReservationTerms = (): { version: string; hash: string } => ({ version: RESERVATION_TERMS.version, hash: RESERVATION_TERMS.hash });
