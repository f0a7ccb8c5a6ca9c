import { randomUUID } from 'node:crypto';
import { ValidationError, decideMerchant, evolveMerchant, initialMerchant } from '@cagnotte/domain';
import type { EventMetadata, MerchantProfileFields } from '@cagnotte/event-schemas';
import { type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';

export const merchantStream = (tenantId: string, slug: string) => `merchant-${tenantId}-${slug}`;

export interface OnboardMerchantInput {
  tenantId: string;
  slug: string;
  ownerEmail?: string;
  profile: MerchantProfileFields;
  activate: boolean;
}

/** What onboarding uses: the write path, and the accounts read model to resolve the owner's email to an id. */
export type OnboardMerchantDeps = CommandRuntime & { accounts: { findInTenant(tenantId: string, identifier: string): Promise<{ id: string } | null> } };

/** Onboards (and by default activates) a merchant; the slug is unique per tenant (stream `merchant-<tenant>-<slug>`). */
export const onboardMerchant = async (deps: OnboardMerchantDeps, input: OnboardMerchantInput, metadata: Omit<EventMetadata, 'tenantId'>) => {
  let ownerUserId: string | null = null;
  if (input.ownerEmail) {
    const owner = await deps.accounts.findInTenant(input.tenantId, input.ownerEmail);
    if (!owner) throw new ValidationError({ ownerEmail: ['no account with this email in the tenant'] });
    ownerUserId = owner.id;
  }
  const merchantId = randomUUID();
  const aggregate = { initial: initialMerchant, evolve: evolveMerchant };
  const now = metadata.occurredAt;
  const outcome = await executeCommand(deps, {
    stream: merchantStream(input.tenantId, input.slug),
    aggregate,
    decide: (state) => {
      const onboarded = decideMerchant({ type: 'OnboardMerchant', data: { merchantId, tenantId: input.tenantId, slug: input.slug, ownerUserId, profile: input.profile }, now }, state);
      if (!input.activate) return onboarded;
      return [...onboarded, ...decideMerchant({ type: 'ActivateMerchant', now }, onboarded.reduce(evolveMerchant, state))];
    },
    metadata: { ...metadata, tenantId: input.tenantId },
  });
  return { merchant: outcome.state, position: outcome.position! };
};
