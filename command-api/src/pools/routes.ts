import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  NotFoundError,
  ValidationError,
  decidePool,
  evolvePool,
  initialPool,
  type ExistingPool,
  type Pool,
  type PoolCommand,
  type PoolPatch,
} from '@cagnotte/domain';
import {
  GroupBuy,
  formatPosition,
  groupBuyOfPool,
  type AuthContext,
  type IdempotencyClaim,
  type Position,
  type RouteAnswer,
  type RouteDef,
  type Services,
  defineRoute,
} from '@cagnotte/infra';
import { ArchiveResult, MerchantPoolCreateInput, PoolCreateInput, PoolIdParams, PoolUpdateInput, Refund } from './schemas';
import { loadActor, metadataFor, poolStream, requireOwnTenant } from '../shared/context';
import { runCommand, type CommandOutcome } from '../shared/run-command';
import { commissionMandate } from '../identity/mandates';

const aggregate = { initial: initialPool, evolve: evolvePool };
const POSITION_HEADER = 'X-Event-Position';
const READ_PROJECTIONS = ['pools'];

export interface PoolRouteDeps {
  services: Services;
  clock: () => Date;
}

/** Resolves `sellerIdentifier` / `sellerMerchantSlug` to `sellerId` within the tenant. */
const resolveSeller = async (
  deps: PoolRouteDeps,
  tenantId: string,
  input: { sellerId?: string | null; sellerIdentifier?: string; sellerMerchantSlug?: string },
): Promise<string | null | undefined> => {
  if (input.sellerIdentifier !== undefined && input.sellerMerchantSlug !== undefined) {
    throw new ValidationError({ sellerIdentifier: ['give sellerIdentifier or sellerMerchantSlug, not both'] });
  }
  if (input.sellerIdentifier !== undefined) {
    const account = await deps.services.accounts.findInTenant(tenantId, input.sellerIdentifier);
    if (!account) throw new ValidationError({ sellerIdentifier: ['no account with this id, email or phone in the tenant'] });
    if (input.sellerId && input.sellerId !== account.id) throw new ValidationError({ sellerId: ['does not match sellerIdentifier'] });
    return account.id;
  }
  if (input.sellerMerchantSlug !== undefined) {
    const merchant = await deps.services.knex('rm_merchants').where({ tenant_id: tenantId, slug: input.sellerMerchantSlug, status: 'ACTIVE' }).first().catch(() => undefined);
    if (!merchant) throw new ValidationError({ sellerMerchantSlug: ['no active merchant with this slug in the tenant'] });
    return merchant.owner_user_id as string;
  }
  return input.sellerId;
};

const positionHeaders = (position: Position | null): Record<string, string> => (position ? { [POSITION_HEADER]: formatPosition(position) } : {});

/** Read-your-writes: the answer goes out once the pools projection shows the write, so any read after it does too. */
const awaitProjection = async (deps: PoolRouteDeps, position: Position | null) => {
  if (position) await deps.services.waiter.waitFor(READ_PROJECTIONS, position, deps.services.config.READ_YOUR_WRITES_TIMEOUT_MS);
};

/**
 * The answer of a pool command: the pool as of the command's own revision, rendered from the fold (never from the
 * read model, which may already show a later writer). Pure, so it can be written with the events under an
 * Idempotency-Key and replayed unchanged.
 */
const poolAnswer =
  (auth: AuthContext, status = 200, extra: (outcome: CommandOutcome<Pool>) => Record<string, unknown> = () => ({})) =>
  (outcome: CommandOutcome<Pool>): RouteAnswer => ({
    status,
    data: { ...groupBuyOfPool(outcome.state as ExistingPool, outcome.revision, { userId: auth.userId }), ...extra(outcome) },
    headers: positionHeaders(outcome.position),
  });

const omitType = <T extends { type: unknown }>(f: T): Omit<T, 'type'> => {
  const { type: _type, ...rest } = f;
  return rest;
};

type CommandCtx = { auth: AuthContext | null; tenant: { id: string } | null; requestId: string; ip: string; idempotency: IdempotencyClaim | null };

/**
 * Runs a pool command as the signed-in user, inside the resolved tenant, and answers with `respond` (written with
 * the events when the request has an Idempotency-Key), once the read side shows the write.
 */
const poolCommand = async (
  deps: PoolRouteDeps,
  ctx: CommandCtx,
  poolId: string,
  build: (meta: PoolCommand['metadata']) => PoolCommand,
  respond: (outcome: CommandOutcome<Pool>) => RouteAnswer,
): Promise<RouteAnswer> => {
  const auth = ctx.auth!;
  const actor = await loadActor(deps.services.store, auth);
  const now = deps.clock().toISOString();
  const tenantId = ctx.tenant?.id ?? auth.tenantId;
  const command = build({ actor, now, ip: ctx.ip });
  const outcome = await runCommand(
    deps.services,
    poolStream(poolId),
    aggregate,
    (state) => {
      // A pool of another tenant does not exist for this caller; creation starts from no pool at all.
      if (command.type !== 'CreatePool' && (state.status === 'none' || state.tenantId !== tenantId)) throw new NotFoundError('pool');
      return decidePool(command, state);
    },
    metadataFor(ctx, tenantId, now),
    { respond, idempotency: ctx.idempotency },
  );
  await awaitProjection(deps, outcome.position);
  return outcome.answer!;
};

export const makePoolCommandRoutes = (deps: PoolRouteDeps): RouteDef[] => {
  const create = (merchant: boolean) =>
    defineRoute({
      method: 'post',
      path: merchant ? '/api/merchant/pools' : '/api/pools',
      summary: merchant ? 'Create a pool (merchant path: seller resolved from sellerIdentifier or sellerMerchantSlug)' : 'Create a pool',
      description: 'Needs the organise capability. Pools start as DRAFT. Answers the GroupBuy as of its own revision, once the read model shows it (read-your-writes).',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      idempotent: true,
      body: merchant ? MerchantPoolCreateInput : PoolCreateInput,
      success: { status: 201, description: 'The created pool', schema: GroupBuy },
      responseHeaders: { [POSITION_HEADER]: 'Feed position of the write; send it back as X-Min-Position to read your write elsewhere' },
      errors: [400, 401, 403, 404],
      handler: async (ctx) => {
        const auth = ctx.auth!;
        const tenant = requireOwnTenant(auth, ctx.tenant);
        const body = ctx.body as MerchantPoolCreateInput;
        const { acceptCommissionMandate, sellerIdentifier, sellerMerchantSlug, ...fields } = body;
        const sellerId = merchant ? await resolveSeller(deps, tenant.id, { sellerId: fields.sellerId, sellerIdentifier, sellerMerchantSlug }) : fields.sellerId;
        const poolId = randomUUID();
        return poolCommand(deps, { ...ctx, tenant }, poolId, (metadata) => ({
          type: 'CreatePool',
          data: {
            poolId,
            tenantId: tenant.id,
            poolType: fields.type,
            fields: { ...omitType(fields), sellerId: sellerId ?? null },
            commissionMandate: acceptCommissionMandate ? commissionMandate() : null,
          },
          metadata,
        }), poolAnswer(auth, 201));
      },
    });

  const update = (merchant: boolean) =>
    defineRoute({
      method: 'patch',
      path: merchant ? '/api/merchant/pools/{id}' : '/api/pools/{id}',
      summary: 'Update a pool',
      description:
        'Owner only. While DRAFT every field, the money spine included (seller, payout, commission, relais). Once published only marketplaceVisibility (to PRIVATE) and country. LISTED/FEATURED are refused here. `status: "OPEN"` publishes a DRAFT. The answer carries `refund` (a delist refund of the listing fee, or null).',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      params: PoolIdParams,
      idempotent: true,
      body: PoolUpdateInput,
      success: { status: 200, description: 'The updated pool plus `refund`', schema: GroupBuy.extend({ refund: Refund }) },
      responseHeaders: { [POSITION_HEADER]: 'Feed position of the write (absent when nothing changed)' },
      errors: [400, 401, 403, 404],
      handler: async (ctx) => {
        const auth = ctx.auth!;
        const { id } = ctx.params as { id: string };
        const { sellerIdentifier, sellerMerchantSlug, ...patch } = ctx.body as PoolUpdateInput;
        const tenantId = ctx.tenant?.id ?? auth.tenantId;
        if (sellerIdentifier !== undefined || sellerMerchantSlug !== undefined) {
          patch.sellerId = await resolveSeller(deps, tenantId, { sellerId: patch.sellerId, sellerIdentifier, sellerMerchantSlug });
        }
        return poolCommand(
          deps,
          ctx,
          id,
          (metadata) => ({ type: 'UpdatePool', data: { patch: patch as PoolPatch }, metadata }),
          poolAnswer(auth, 200, ({ events }) => {
            const change = events.find((e) => e.type === 'PoolVisibilityChanged');
            return { refund: change?.type === 'PoolVisibilityChanged' ? change.data.refund : null };
          }),
        );
      },
    });

  const archiveRoute = (method: 'post' | 'delete') =>
    defineRoute({
      method,
      path: '/api/pools/{id}/archive',
      summary: method === 'post' ? 'Archive a pool' : 'Unarchive a pool',
      description: method === 'post' ? 'Organiser and owner. 400 if already archived.' : 'Organiser and owner. 400 if not archived.',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      params: PoolIdParams,
      idempotent: true,
      success: { status: 200, description: 'The pool id and its archivedAt', schema: ArchiveResult },
      responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
      errors: [400, 401, 403, 404],
      handler: async (ctx) => {
        const { id } = ctx.params as { id: string };
        return poolCommand(
          deps,
          ctx,
          id,
          (metadata) => ({ type: method === 'post' ? 'ArchivePool' : 'UnarchivePool', data: {}, metadata }),
          (outcome) => ({ data: { id, archivedAt: (outcome.state as ExistingPool).archivedAt }, headers: positionHeaders(outcome.position) }),
        );
      },
    });

  const publish = (merchant: boolean) =>
    defineRoute({
      method: 'post',
      path: merchant ? '/api/merchant/pools/{id}/publish' : '/api/pools/{id}/publish',
      summary: 'Publish a DRAFT pool (DRAFT → OPEN)',
      description: 'Owner and organiser. GROUPS pools need at least one unit, FUNDING pools a positive targetAmount. 400 when not DRAFT.',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      params: PoolIdParams,
      idempotent: true,
      success: { status: 200, description: 'The published pool', schema: GroupBuy },
      errors: [400, 401, 403, 404],
      handler: async (ctx) => {
        const { id } = ctx.params as { id: string };
        return poolCommand(deps, ctx, id, (metadata) => ({ type: 'PublishPool', data: {}, metadata }), poolAnswer(ctx.auth!));
      },
    });

  return [create(false), create(true), update(false), update(true), archiveRoute('post'), archiveRoute('delete'), publish(false), publish(true)];
};

export const PoolCommandSchemas = { PoolCreateInput, MerchantPoolCreateInput, PoolUpdateInput } satisfies Record<string, z.ZodType>;
