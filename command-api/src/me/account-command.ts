import { evolveAccount, type Account } from '@cagnotte/domain';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { formatPosition, type Position, type RequestContext, type Services } from '@cagnotte/infra';
import { accountStream, metadataFor } from '../shared/context';
import { runCommand, type Aggregate } from '../shared/run-command';

const accountAggregate: Aggregate<Account | null> = { initial: () => null, evolve: evolveAccount };

type Ctx = Pick<RequestContext<unknown, unknown, unknown>, 'auth' | 'requestId' | 'ip'>;

/**
 * One command on the caller's account stream: decide answers the events and a result for the route; then, when
 * something was appended, wait until the identity projection (hence /api/auth/me) shows it.
 */
export const onAccount = async <T>(
  services: Services,
  clock: () => Date,
  ctx: Ctx,
  tenantId: string,
  decide: (a: Account | null) => { events: DomainEvent[]; result: T },
): Promise<{ result: T; state: Account | null; position: Position | null }> => {
  let result: T | undefined;
  const outcome = await runCommand(
    services,
    accountStream(ctx.auth!.userId),
    accountAggregate,
    (state) => {
      const d = decide(state);
      result = d.result;
      return d.events;
    },
    metadataFor(ctx, tenantId, clock().toISOString()),
  );
  if (outcome.position) await services.waiter.waitFor(['identity'], outcome.position, services.config.READ_YOUR_WRITES_TIMEOUT_MS);
  return { result: result as T, state: outcome.state, position: outcome.position };
};

export const positionHeader = (p: Position | null): Record<string, string> => (p ? { 'X-Event-Position': formatPosition(p) } : {});
