/**
 * The `/v1` objects' ids (docs/v1.md): a published format, so it lives with the other published vocabulary. The
 * command side, the read side and the SDK's users all spell an id the same way.
 */
export const V1_ID_PREFIXES = ['acct', 'tr', 'req', 'gb', 'ord', 'deal', 'we', 'evt', 'key'] as const;
export type V1IdPrefix = (typeof V1_ID_PREFIXES)[number];

/** `deal_3f2a…`: the prefix and the uuid's 32 hex digits, lower case. */
export const toPrefixedId = (prefix: V1IdPrefix, uuid: string): string => `${prefix}_${uuid.replace(/-/g, '').toLowerCase()}`;

/** The uuid behind `<prefix>_<32 hex>`, or null when the id is not one of that prefix (the caller answers 404). */
export const fromPrefixedId = (prefix: V1IdPrefix, id: string): string | null => {
  const m = new RegExp(`^${prefix}_([0-9a-f]{32})$`).exec(id);
  if (!m) return null;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

