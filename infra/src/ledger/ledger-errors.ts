// The ledger's two failures, apart from the gateway so that what the gateway uses (the source lock) can throw them too.

/** Horizon refused a transaction: its result codes, as Horizon names them. */
export class LedgerRejectedError extends Error {
  constructor(
    readonly status: number,
    readonly resultCodes: { transaction?: string; operations?: string[] },
  ) {
    super(`the ledger rejected the transaction: ${[resultCodes.transaction, ...(resultCodes.operations ?? [])].filter(Boolean).join(', ') || `HTTP ${status}`}`);
    this.name = 'LedgerRejectedError';
  }
}

/** Horizon did not answer in time, or answered 5xx: the transaction may still land. */
export class LedgerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerUnavailableError';
  }
}
