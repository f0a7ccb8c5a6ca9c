// `<prefix>_<the uuid's 32 hex digits>` (docs/v1 conventions). The HTTP kit's toPrefixedId/fromPrefixedId are the
// same rule for the routes; the view is pure and renders ids with this one.
export const prefixedId = (prefix: string, uuid: string): string => `${prefix}_${uuid.replace(/-/g, '').toLowerCase()}`;

export const uuidOfPrefixed = (prefix: string, id: string): string | null => {
  const m = new RegExp(`^${prefix}_([0-9a-f]{32})$`).exec(id);
  if (!m) return null;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
