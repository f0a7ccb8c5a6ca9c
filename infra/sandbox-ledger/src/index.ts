export { SANDBOX_PASSPHRASE_DEFAULT, sandboxKeys, type SandboxKeys } from './keys';
export {
  SandboxLedger,
  GENESIS_SUPPLY,
  FRIENDBOT_STARTING_BALANCE,
  FRIENDBOT_STABLECOIN_AMOUNT,
  FRIENDBOT_MAX_STABLECOIN,
  type SandboxLedgerOptions,
  type SubmitResult,
} from './ledger';
export { createSandboxHorizonRouter, type SandboxHorizonRouterOptions } from './horizon-router';
export { formatAmount as formatStellarAmount, parseAmount as parseStellarAmount } from './amounts';
export type { ResultCodes, TxCode } from './codes';
export type { HorizonProblem, PageQuery as HorizonPageQuery } from './records';
export { MemoryLedger, type MemorySubmitResult, type MemoryTransaction } from './memory';
