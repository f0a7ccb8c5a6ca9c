import { fromPrefixedId, type V1IdPrefix } from '@cagnotte/event-schemas';

// `<prefix>_<the uuid's 32 hex digits>`: the one rule of event-schemas/src/ids.ts.
export { prefixedId } from '../accounts/ids';
export const uuidOfPrefixed = (prefix: V1IdPrefix, id: string): string | null => fromPrefixedId(prefix, id);
