/**
 * TEMPORARY (issue 9 merge): the names command-api still imports from @cagnotte/infra although they moved to
 * @cagnotte/read-models (views, account rows) and @cagnotte/event-schemas (mandate texts). Delete this file
 * once command-api imports them from there; nothing else uses it.
 */
import { createHash } from 'node:crypto';
import { organiserGrantView as grantView, type BuiltPayment, type GrantFacts } from '@cagnotte/read-models';
import type { LedgerGateway } from './ledger/gateway';
import { ledgerCall } from './ledger/ledger-call';

export { MANDATE_TEXTS, commissionMandate, currentMandate, mandateTexts } from '@cagnotte/event-schemas';
export {
  AccountReadModel,
  MandateSchema,
  MandateTextSchema,
  OrganiserGrantSchema,
  TenantReadModel,
  UserSummarySchema,
  mandateView,
  toUserSummary,
  type AccountRow,
  type BuiltPayment,
} from '@cagnotte/read-models';

export const mandateHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The grant view with the payment built by the gateway (the signature command-api calls). */
export const organiserGrantView = async (ledger: LedgerGateway, grant: GrantFacts, built?: BuiltPayment) =>
  grantView(
    grant,
    ledger.settings.networkPassphrase,
    grant.status === 'SETTLED' ? null : (built ?? (await ledgerCall(() => ledger.buildFeePayment(grant.ledgerAccount, grant.amount, grant.memoHash)))),
  );
