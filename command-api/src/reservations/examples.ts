import type { ReservationView } from '@cagnotte/read-models';

// What /docs shows for the reservation path, one buyer's story end to end: Bea reserves 4 kg of Comté at the tier
// price (16.00) in Olga's pool, signs the terms and pays 64.00 into the escrow. Made up, but every value has the shape,
// and the figures the arithmetic, the service answers with (scripts/src/openapi/examples.int.spec.ts checks each
// example against its schema).

const POOL_ID = '5b0e7d8c-3c1a-4f7e-9b2d-6a4c8e1f2d3b';
const RESERVATION_ID = '8d4f2a6b-1e3c-4b5d-a7f9-0c2e4a6b8d1f';
const TX_HASH = 'c0ffee5a1f3e9b7d2c4a6e8f0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d';

export const reserveExample = { lines: [{ unitId: 'comte', quantity: 4 }] };

export const pendingReservationExample: ReservationView = {
  id: RESERVATION_ID,
  poolId: POOL_ID,
  buyerId: '2a7c9e1b-4d6f-4a8c-b0e2-3f5a7c9e1b4d',
  buyerName: 'Bea',
  status: 'PENDING',
  lines: [{ unitId: 'comte', quantity: 4, unitPrice: '16.00' }],
  pledge: null,
  amount: '64.00',
  depositFee: '0.00',
  currency: 'EUR',
  relaisId: null,
  pickupPoint: null,
  placedAt: '2026-11-27T10:15:00.000Z',
  expiresAt: '2026-11-27T10:30:00.000Z',
  terms: null,
  escrowAccount: 'GB52KEV5AJF52JWQTBW4SQ23Z7SEL5PDEI7K7Z7R5VDTQ3WATNOCD3CK',
  reclaimAfter: null,
  payment: null,
  latePayments: [],
  endedAt: null,
  acceptance: null,
  dispute: null,
  settlements: [],
  actions: ['sign', 'cancel'],
};

export const signExample = { acceptTerms: true as const, termsVersion: '2026-11', termsHash: '6f1c3e5a7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a' };

export const payExample = { txHash: TX_HASH };
