import { randomUUID } from 'node:crypto';
import { decideTenant, tenantAggregate } from '@cagnotte/domain';
import type { EventData, EventMetadata } from '@cagnotte/event-schemas';
import type { Position } from '@cagnotte/infra';
import { tenantStream } from '../shared/context';
import { runCommand, type CommandRuntime } from '../shared/run-command';

export interface CreateTenantInput {
  slug: string;
  name?: string | undefined;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

/**
 * Creates `tenant-<slug>`. A taken slug is a conflict (409 tenant_exists): decided on the stream, and when two
 * creations race, the loser's append fails on no_stream and its retry decides again on the stream the winner made.
 */
export const createTenant = async (
  runtime: CommandRuntime,
  input: CreateTenantInput,
  metadata: Omit<EventMetadata, 'tenantId'>,
): Promise<{ tenant: EventData<'TenantCreated'>; position: Position }> => {
  const tenantId = randomUUID();
  const outcome = await runCommand(
    runtime,
    tenantStream(input.slug),
    tenantAggregate,
    (state) =>
      decideTenant(
        {
          type: 'CreateTenant',
          data: { tenantId, slug: input.slug, name: input.name ?? input.slug, whiteLabel: input.whiteLabel, approvedOrigins: input.approvedOrigins },
          metadata: { now: metadata.occurredAt },
        },
        state,
      ),
    { ...metadata, tenantId },
  );
  return { tenant: outcome.events[0]!.data, position: outcome.position! };
};
