import { createHash } from 'node:crypto';
import type { MandateKind } from '@cagnotte/event-schemas';

/** Server-authoritative mandate texts. A new wording is a new version; acceptance records version and sha256. */
export const MANDATE_TEXTS: Record<MandateKind, { version: string; text: string }> = {
  FEE: {
    version: '2026-01',
    text: 'I authorise the platform to charge the service fees shown before each payment, deducted from the amounts I pay into escrow.',
  },
  COMMISSION: {
    version: '2026-01',
    text: 'As organiser of a brokered pool, I authorise the platform to pay my commission out of the released escrow, at the percentage set on the pool, and to issue the matching invoice on my behalf.',
  },
  RELAIS: {
    version: '2026-01',
    text: 'I authorise the platform to share my order reference and contact details with the chosen pick-up point for the sole purpose of delivery.',
  },
};

export const mandateHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const currentMandate = (kind: MandateKind): { version: string; hash: string } => ({
  version: MANDATE_TEXTS[kind].version,
  hash: mandateHash(MANDATE_TEXTS[kind].text),
});

export const commissionMandate = (): { version: string; hash: string } => currentMandate('COMMISSION');

/** The texts as `GET /api/mandates` lists them. */
export const mandateTexts = () =>
  (Object.keys(MANDATE_TEXTS) as MandateKind[]).map((kind) => ({ kind, text: MANDATE_TEXTS[kind].text, ...currentMandate(kind) }));
