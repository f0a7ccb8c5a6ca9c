import { z } from 'zod';
import type { ParsedEvent } from '@cagnotte/event-schemas';

/** An event as a fold sees it: parsed (upcast), plus its stream and its revision in that stream. */
export type FoldEvent = ParsedEvent & { streamId: string; revision: bigint };

const uuid = z.string().uuid();

/**
 * The uuid check of the id columns (the same one the event schemas apply): a reader answers "none" for a
 * malformed id instead of letting PostgreSQL reject it. Local rather than the domain's, which the read side may not import.
 */
export const isUuid = (s: string): boolean => uuid.safeParse(s).success;

/** Account streams are `account-<userId>`: the owner of what a fold reads there is the stream's user. */
export const ACCOUNT_STREAM_PREFIX = 'account-';
export const accountStreamOwner = (streamId: string): string | null =>
  streamId.startsWith(ACCOUNT_STREAM_PREFIX) ? streamId.slice(ACCOUNT_STREAM_PREFIX.length) : null;
