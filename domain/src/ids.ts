/**
 * A uuid as zod's `.uuid()` accepts it (RFC 9562: version 1–8, variant 10xx, or the nil/max uuids).
 * One definition everywhere ids are checked, so nothing that passes here fails a uuid column or an event schema.
 */
const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i;

export const isUuid = (s: string): boolean => UUID.test(s);
