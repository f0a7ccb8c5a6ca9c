// The mandate texts live in infra: both the write side (acceptance) and the read side (listing) need them.
export { MANDATE_TEXTS, commissionMandate, currentMandate, mandateHash, mandateTexts } from '@cagnotte/infra';
