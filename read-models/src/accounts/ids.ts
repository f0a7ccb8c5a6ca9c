/*
 * The /v1 ids the read side writes (public event subjects and data): a prefix and the uuid's 32 hex digits. The same
 * shape as infra/src/http/v1.ts's toPrefixedId, which the read side may not import.
 */
export const prefixedId = (prefix: 'acct' | 'tr' | 'key', uuid: string): string => `${prefix}_${uuid.replace(/-/g, '')}`;
export const acctId = (userId: string): string => prefixedId('acct', userId);
export const trId = (transferId: string): string => prefixedId('tr', transferId);
