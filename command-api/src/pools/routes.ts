import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  NotFoundError,
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
import { resolveSeller } from './references';

const aggregate = { initial: initialPool, evolve: evolvePool };
const POSITION_HEADER = 'X-Event-Position';
const READ_PROJECTIONS = ['pools'];

export interface PoolRouteDeps {
  services: Services;
  clock: () => Date;
}

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
      // A pool of another tenant does not exist for this caller: the decider sees no pool (and checks the role first where it should).
      return decidePool(command, state.status !== 'none' && state.tenantId !== tenantId ? initialPool() : state);
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
      description:
        'Needs the organise capability. Pools start as DRAFT. `config` is closed: an unknown key is a 400 naming it. `sellerId` must be a user of the tenant (else 400 on `sellerId`); on the merchant path `sellerIdentifier` must find a user of the tenant and `sellerMerchantSlug` an ACTIVE merchant of the tenant that the caller owns (else 400 on that field). A value shaped like a Stellar secret key anywhere is refused (400 `secret_key_refused`). 503 `service_unavailable` when a lookup cannot reach the database. Answers the GroupBuy as of its own revision, once the read model shows it (read-your-writes).',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      idempotent: true,
      body: merchant ? MerchantPoolCreateInput : PoolCreateInput,
      success: { status: 201, description: 'The created pool', schema: GroupBuy },
      responseHeaders: { [POSITION_HEADER]: 'Feed position of the write; send it back as X-Min-Position to read your write elsewhere' },
      errors: [400, 401, 403, 404, 503],
      handler: async (ctx) => {
        const auth = ctx.auth!;
        const tenant = requireOwnTenant(auth, ctx.tenant);
        const body = ctx.body as MerchantPoolCreateInput;
        const { acceptCommissionMandate, sellerIdentifier, sellerMerchantSlug, ...fields } = body;
        const sellerId = await resolveSeller(deps.services, tenant.id, auth.userId, { sellerId: fields.sellerId, sellerIdentifier, sellerMerchantSlug });
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
        'Owner only. While DRAFT every field, the money spine included (seller, payout, commission, relais). Once published only marketplaceVisibility (to PRIVATE) and country. LISTED/FEATURED are refused here. PATCH never changes the status: a `status` other than the current one is a 400 `status_not_patchable` (publish with POST …/publish). `sellerId` must be a user of the tenant; `sellerMerchantSlug` a merchant of the tenant the caller owns. A value shaped like a Stellar secret key is refused (400 `secret_key_refused`). The answer carries `refund` (a delist refund of the listing fee, or null).',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      params: PoolIdParams,
      idempotent: true,
      body: PoolUpdateInput,
      success: { status: 200, description: 'The updated pool plus `refund`', schema: GroupBuy.extend({ refund: Refund }) },
      responseHeaders: { [POSITION_HEADER]: 'Feed position of the write (absent when nothing changed)' },
      errors: [400, 401, 403, 404, 503],
      handler: async (ctx) => {
        const auth = ctx.auth!;
        const { id } = ctx.params as { id: string };
        const { sellerIdentifier, sellerMerchantSlug, ...patch } = ctx.body as PoolUpdateInput;
        const tenantId = ctx.tenant?.id ?? auth.tenantId;
        // Pools are created in their organiser's own tenant: under another tenant's header there is no pool of
        // the caller's, and the seller lookups below must not answer questions about another tenant's users.
        if (tenantId !== auth.tenantId) throw new NotFoundError('pool');
        if (patch.sellerId || sellerIdentifier !== undefined || sellerMerchantSlug !== undefined) {
          patch.sellerId = await resolveSeller(deps.services, tenantId, auth.userId, { sellerId: patch.sellerId, sellerIdentifier, sellerMerchantSlug });
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
      description:
        method === 'post'
          ? 'Organiser and owner: 403 without the organise capability (checked first), 404 when the pool is not the caller\'s. 400 if already archived.'
          : 'Organiser and owner: 403 without the organise capability (checked first), 404 when the pool is not the caller\'s. 400 if not archived.',
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
