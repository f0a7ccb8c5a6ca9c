import { createHmac, timingSafeEqual } from 'node:crypto';

// A buyer's one-time collection code at a community host (docs/relais.md): 8 digits derived from the reservation id
// by HMAC-SHA256 under a server secret, so nothing secret is stored and no event carries it. The command side (the
// host entering it) and the query side (the buyer reading it) derive it with this one function.

/** The key, separated from the secret's other uses (the secret is the service's JWT_SECRET). */
const keyOf = (secret: string): Buffer => createHmac('sha256', secret).update('cagnotte/relais/collection-code/v1').digest();

/** 8 digits: 48 bits of the MAC reduced mod 10^8 (the bias is below 10^-6). */
export const collectionCode = (secret: string, reservationId: string): string => {
  const mac = createHmac('sha256', keyOf(secret)).update(`collect:${reservationId}`).digest();
  return String(mac.readUIntBE(0, 6) % 100_000_000).padStart(8, '0');
};

/** What a front-end renders as a QR code for the host's scanner: the code and whose parcel it opens. */
export const collectionQrPayload = (code: string, reservationId: string): string => `cagnotte-relais:collect?code=${code}&reservation=${reservationId}`;

export const COLLECTION_CODE = /^\d{8}$/;

/** Whether `entered` is the code of `reservationId` (compared in constant time). */
export const isCollectionCode = (secret: string, reservationId: string, entered: string): boolean => {
  if (!COLLECTION_CODE.test(entered)) return false;
  return timingSafeEqual(Buffer.from(collectionCode(secret, reservationId)), Buffer.from(entered));
};
