// The mandate texts are shared vocabulary in @cagnotte/event-schemas (mandates/texts.ts). This alias stays only
// while command-api/src/pools/routes.ts imports from here; delete it once that import points at event-schemas.
export { commissionMandate } from '@cagnotte/event-schemas';
