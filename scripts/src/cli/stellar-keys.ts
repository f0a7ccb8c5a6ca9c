import { createPrivateKey, createPublicKey } from 'node:crypto';

// Stellar account ids (G…) from ed25519 seeds with node:crypto alone, for `ledger info`: loading the Stellar SDK takes
// most of a second, more than the whole answer may. The encoding is Stellar's StrKey (SEP-23): a version byte, the
// 32-byte key, a CRC16-XModem checksum (little-endian), in RFC 4648 base32 without padding. The unit spec checks every
// result against the SDK's Keypair.

const ACCOUNT_ID = 6 << 3; // 'G…'
const SECRET_SEED = 18 << 3; // 'S…'
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** PKCS#8 DER of an ed25519 private key, less its 32-byte seed. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

const crc16xmodem = (bytes: Uint8Array): number => {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
};

const base32 = (bytes: Uint8Array): string => {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + ALPHABET[(value << (5 - bits)) & 31] : out;
};

const unbase32 = (text: string): Buffer => {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) throw new RangeError('not base32');
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
};

const encode = (version: number, key: Uint8Array): string => {
  const payload = Buffer.concat([Buffer.from([version]), key]);
  const crc = crc16xmodem(payload);
  return base32(Buffer.concat([payload, Buffer.from([crc & 0xff, crc >> 8])]));
};

/** The account id (G…) of an ed25519 key given by its 32-byte seed. */
export const accountIdOfSeed = (seed: Uint8Array): string => {
  if (seed.length !== 32) throw new RangeError('an ed25519 seed has 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return encode(ACCOUNT_ID, spki.subarray(spki.length - 32));
};

/** The 32-byte seed of a secret key (S…); throws on a malformed one or a bad checksum. */
export const seedOfSecret = (secret: string): Buffer => {
  const raw = unbase32(secret);
  if (secret.length !== 56 || raw.length !== 35 || raw[0] !== SECRET_SEED) throw new RangeError('not a Stellar secret key');
  const crc = crc16xmodem(raw.subarray(0, 33));
  if (raw[33] !== (crc & 0xff) || raw[34] !== crc >> 8) throw new RangeError('a Stellar secret key with a bad checksum');
  return raw.subarray(1, 33);
};
