import type { MandateKind } from '../pools';

/**
 * Server-authoritative mandate texts: shared vocabulary of the write side (an acceptance records the version and
 * sha256 of the text it accepted) and the read side (a listed mandate is `current` when it matches). A new wording
 * is a new version with its new hash. The hash is a literal so this module stays pure data; texts.unit.spec.ts
 * recomputes it from the text, so the two cannot drift apart.
 */
export const MANDATE_TEXTS: Record<MandateKind, { version: string; text: string; hash: string }> = {
  FEE: {
    version: '2026-01',
    text: 'I authorise the platform to charge the service fees shown before each payment, deducted from the amounts I pay into escrow.',
    hash: 'a9eeadffbb826710df514529b50e2474fde0c10dd7bc12174bd59c2017b2236f',
  },
  COMMISSION: {
    version: '2026-01',
    text: 'As organiser of a brokered pool, I authorise the platform to pay my commission out of the released escrow, at the percentage set on the pool, and to issue the matching invoice on my behalf.',
    hash: 'bfd2d48020641e2cc54d4798d7317d4320b3e37d9a0dc126a8e7c4ba415ab4d8',
  },
  RELAIS: {
    version: '2026-01',
    text: 'I authorise the platform to share my order reference and contact details with the chosen pick-up point for the sole purpose of delivery.',
    hash: 'c2ad8e65da1e293867e0fec5022e95435ffdccc9c439f0362a2bd6c3ab0b7c13',
  },
};

/** The version and sha256 an acceptance of `kind` records today. */
export const currentMandate = (kind: MandateKind): { version: string; hash: string } => ({
  version: MANDATE_TEXTS[kind].version,
  hash: MANDATE_TEXTS[kind].hash,
});

export const commissionMandate = (): { version: string; hash: string } => currentMandate('COMMISSION');

/** The texts as `GET /api/mandates` lists them. */
export const mandateTexts = () =>
  (Object.keys(MANDATE_TEXTS) as MandateKind[]).map((kind) => ({ kind, text: MANDATE_TEXTS[kind].text, ...currentMandate(kind) }));
