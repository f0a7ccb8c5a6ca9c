import type { Minor } from '../money';
import { percentHundredths } from './percent';

/** One cent in stroops (the ledger has 7 decimals, invoices 2). */
export const CENT = 100_000n;

/** Down to the cent (amounts here are never negative). */
export const floorCent = (x: Minor): Minor => x - (x % CENT);

/** `amount × percent`, rounded DOWN to the cent: a fee or a commission, never above its rate. */
export const percentFloorCent = (amount: Minor, percent: string): Minor => ((amount * percentHundredths(percent)) / (10_000n * CENT)) * CENT;

/** `amount × percent`, rounded half-up to the cent: VAT on a fee. */
export const percentHalfUpCent = (amount: Minor, percent: string): Minor => ((amount * percentHundredths(percent) + 5_000n * CENT) / (10_000n * CENT)) * CENT;

export const minOf = (a: Minor, b: Minor): Minor => (a < b ? a : b);
export const maxOf = (a: Minor, b: Minor): Minor => (a > b ? a : b);
