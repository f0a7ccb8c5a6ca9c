import { randomUUID } from 'node:crypto';
import { ValidationError, decideMerchant, evolveMerchant, initialMerchant } from '@cagnotte/domain';
import type { EventMetadata, MerchantProfileFields } from '@cagnotte/event-schemas';
import type { Services } from '@cagnotte/infra';
import { runCommand } from '../shared/run-command';
import { AccountReadModel } from '@cagnotte/read-models';

export const merchantStream = (tenantId: string, slug: string) => `merchant-${tenantId}-${slug}`;

export interface OnboardMerchantInput {
  tenantId: string;
  slug: string;
  ownerEmail?: string;
  profile: MerchantProfileFields;
  activate: boolean;
}

/** Onboards (and by default activates) a merchant; the slug is unique per tenant (stream `merchant-<tenant>-<slug>`). */
export const onboardMerchant = async (services: Services, input: OnboardMerchantInput, metadata: Omit<EventMetadata, 'tenantId'>) => {
  let ownerUserId: string | null = null;
  if (input.ownerEmail) {
    const owner = await new AccountReadModel(services.knex).findInTenant(input.tenantId, input.ownerEmail);
    if (!owner) throw new ValidationError({ ownerEmail: ['no account with this email in the tenant'] });
    ownerUserId = owner.id;
  }
  const merchantId = randomUUID();
  const aggregate = { initial: initialMerchant, evolve: evolveMerchant };
  const now = metadata.occurredAt;
  const outcome = await runCommand(
    services,
    merchantStream(input.tenantId, input.slug),
    aggregate,
    (state) => {
      const onboarded = decideMerchant({ type: 'OnboardMerchant', data: { merchantId, tenantId: input.tenantId, slug: input.slug, ownerUserId, profile: input.profile }, now }, state);
      if (!input.activate) return onboarded;
      return [...onboarded, ...decideMerchant({ type: 'ActivateMerchant', now }, onboarded.reduce(evolveMerchant, state))];
    },
    { ...metadata, tenantId: input.tenantId },
  );
  return { merchant: outcome.state, position: outcome.position! };
};
