import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, decidePool, type Pool, type PoolPatch } from '@cagnotte/domain';
import {
  CountryCode,
  Id,
  IsoDate,
  MarketplaceVisibility,
  Percent,
  PoolStatus,
  PoolType,
  StellarAccountId,
} from '@cagnotte/event-schemas';
import { LedgerAmount, defineRoute, type RouteAnswer, type RouteDef, type TenantRef } from '@cagnotte/infra';
import { GroupBuy } from '@cagnotte/read-models';
import { poolStream, requireOwnTenant } from '../shared/context';
import { POSITION_HEADER, executeCommand, fromRequest, type CommandCtx } from '../shared/execute-command';
import { commissionMandate } from '@cagnotte/event-schemas';
import { openEscrowFor } from './publish';
import { queueDelistRefund } from './listing';
import { poolAggregate, poolInTenant, type PoolCommandState, type PoolOutcome } from './aggregate';
import { documentOf, poolAnswer } from './answers';
import { resolveSeller } from './seller';
import type { PoolCommandDeps } from './deps';
import { PoolConfigInput, resolvePoolConfig } from '../relais/pool-config';

// ---------------------------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------------------------
/** A percentage sent as "12.5" or 12.5; kept as a decimal string. */
const PercentInput = z
  .union([z.string(), z.number().finite()])
  .transform((v) => String(v))
  .pipe(Percent);

const Title = z.string().trim().min(1).max(200);

export const PoolCreateInput = z
  .object({
    type: PoolType,
    title: Title,
    description: z.string().max(10_000).default(''),
    country: CountryCode.default('FR'),
    currency: z.literal('EUR').default('EUR'),
    marketplaceVisibility: MarketplaceVisibility.default('PRIVATE'),
    config: PoolConfigInput.default({}),
    sellerId: Id.nullable().default(null),
    payoutAccount: StellarAccountId.nullable().default(null),
    organiserCommissionPercent: PercentInput.nullable().default(null).describe('BUSINESS accounts only'),
    targetAmount: LedgerAmount.nullable().default(null).describe('FUNDING goal, decimal string'),
    deadline: IsoDate.nullable().default(null),
    acceptCommissionMandate: z.boolean().default(false).describe('Records the COMMISSION mandate on a brokered paid pool'),
  })
  .strict()
  .describe('PoolCreateInput');
export type PoolCreateInput = z.infer<typeof PoolCreateInput>;

const SellerResolution = {
  sellerIdentifier: z.string().trim().min(1).max(200).optional().describe('User id, email or phone of the seller in this tenant; resolved to sellerId'),
  sellerMerchantSlug: z.string().trim().min(1).max(64).optional().describe('Slug of the seller\'s merchant profile; resolved to sellerId'),
};

export const MerchantPoolCreateInput = PoolCreateInput.extend(SellerResolution).strict().describe('MerchantPoolCreateInput');
export type MerchantPoolCreateInput = z.infer<typeof MerchantPoolCreateInput>;

/** One schema for both PATCH endpoints. Absent fields are left as they are; PATCH never changes the status. */
export const PoolUpdateInput = z
  .object({
    title: Title.optional(),
    description: z.string().max(10_000).optional(),
    country: CountryCode.optional(),
    currency: z.literal('EUR').optional(),
    marketplaceVisibility: MarketplaceVisibility.optional().describe('Once published, only PRIVATE; LISTED/FEATURED go through the listing operation'),
    config: PoolConfigInput.optional(),
    sellerId: Id.nullable().optional(),
    payoutAccount: StellarAccountId.nullable().optional(),
    organiserCommissionPercent: PercentInput.nullable().optional(),
    targetAmount: LedgerAmount.nullable().optional(),
    deadline: IsoDate.nullable().optional(),
    status: PoolStatus.optional().describe('Accepted only with the current status (ignored); any other is a 400 `status_not_patchable`: publish with POST …/publish'),
    ...SellerResolution,
  })
  .strict()
  .describe('PoolUpdateInput');
export type PoolUpdateInput = z.infer<typeof PoolUpdateInput>;

export const PoolIdParams = z.object({ id: z.string().uuid() });

export const ArchiveResult = z.object({ id: z.string().uuid(), archivedAt: z.string().nullable() });
export const Refund = z.object({ amount: z.string(), source: z.string() }).nullable();

const omitType = <T extends { type: unknown }>(f: T): Omit<T, 'type'> => {
  const { type: _type, ...rest } = f;
  return rest;
};

// ---------------------------------------------------------------------------------------------------------------
// Commands: the facts and the command, decided on the pool as the caller's tenant sees it, answered by `respond`.
// The /api routes below and the /v1 group-buys (./v1-routes.ts) both take these paths: one engine.
// ---------------------------------------------------------------------------------------------------------------

/** Creates a pool (a DRAFT) in the caller's own tenant, recording the mode it is created in. */
export const createPool = async (
  deps: PoolCommandDeps,
  ctx: CommandCtx & { tenant: TenantRef | null },
  body: MerchantPoolCreateInput,
  o: { livemode: boolean; respond: (outcome: PoolOutcome) => RouteAnswer },
): Promise<RouteAnswer> => {
  const auth = ctx.auth!;
  const tenant = requireOwnTenant(auth, ctx.tenant);
  const { acceptCommissionMandate, sellerIdentifier, sellerMerchantSlug, ...fields } = body;
  const [actor, sellerId, config] = await Promise.all([
    deps.facts.actor(auth),
    resolveSeller(deps, tenant.id, auth.userId, { sellerId: fields.sellerId, sellerIdentifier, sellerMerchantSlug }),
    // Directory pick-up points are resolved (fresh) before deciding: the event keeps a snapshot of each.
    resolvePoolConfig(deps.relaisDirectory, tenant.id, fields.config),
  ]);
  const poolId = randomUUID();
  const now = deps.clock().toISOString();
  const data = {
    poolId,
    tenantId: tenant.id,
    poolType: fields.type,
    fields: { ...omitType(fields), config, sellerId: sellerId ?? null },
    commissionMandate: acceptCommissionMandate ? commissionMandate() : null,
    livemode: o.livemode,
  };
  const { answer } = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: ({ pool }) => decidePool({ type: 'CreatePool', data, metadata: { actor, now, ip: ctx.ip } }, poolInTenant(pool, tenant.id)),
    respond: o.respond,
    ...fromRequest(ctx, tenant.id, now),
  });
  return answer;
};

/**
 * Publishes a DRAFT (opening its escrow on the ledger first). `visible` narrows the pool further than its tenant (the
 * /v1 key's mode): what it hides is none, as another tenant's pool.
 */
export const publishPool = async (
  deps: PoolCommandDeps,
  ctx: CommandCtx,
  id: string,
  respond: (outcome: PoolOutcome) => RouteAnswer,
  visible: (state: PoolCommandState, pool: Pool) => Pool = (_s, pool) => pool,
): Promise<RouteAnswer> => {
  const tenantId = ctx.tenant?.id ?? ctx.auth!.tenantId;
  // The ledger is called before the command (its escrow account goes into the event); the decider checks again.
  const { actor, escrow } = await openEscrowFor(deps, ctx.auth!, tenantId, id, visible);
  const now = deps.clock().toISOString();
  const { answer } = await executeCommand(deps, {
    stream: poolStream(id),
    aggregate: poolAggregate,
    decide: (state) => decidePool({ type: 'PublishPool', data: { escrow }, metadata: { actor, now, ip: ctx.ip } }, visible(state, poolInTenant(state.pool, tenantId))),
    respond,
    ...fromRequest(ctx, tenantId, now),
  });
  return answer;
};

// ---------------------------------------------------------------------------------------------------------------
// Routes: schema, facts, the command (decided on the pool as the caller's tenant sees it), the answer.
// ---------------------------------------------------------------------------------------------------------------

/** What /docs shows for POST /api/pools: Comté at 18.50 a kilo, 16.00 from the fourth, released when the pool closes. */
const poolCreateExample: PoolCreateInput = {
  type: 'GROUPS',
  title: 'Fromages du Jura',
  description: 'Comté aged 18 months, cut to order by the cooperative of Poligny.',
  deadline: '2026-12-15T18:00:00.000Z',
  config: {
    units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 20, tiers: [{ minQuantity: 4, price: '16.00' }] }],
    release: { after: 'CLOSE' },
  },
} as PoolCreateInput;

export const makePoolCommandRoutes = (deps: PoolCommandDeps): RouteDef[] => {
  const create = (merchant: boolean) =>
    defineRoute({
      method: 'post',
      path: merchant ? '/api/merchant/pools' : '/api/pools',
      summary: merchant ? 'Create a pool (merchant path: seller resolved from sellerIdentifier or sellerMerchantSlug)' : 'Create a pool',
      description:
        'Needs the organise capability. Pools start as DRAFT. `config` is closed: an unknown key is a 400 naming it. `sellerId` must be a user of the tenant (else 400 on `sellerId`); on the merchant path `sellerIdentifier` must find a user of the tenant and `sellerMerchantSlug` an ACTIVE merchant of the tenant that the caller owns (else 400 on that field). A value shaped like a Stellar secret key anywhere is refused (400 `secret_key_refused`). 503 `service_unavailable` when a lookup cannot reach the database. `config.relais` entries with a directory id (`<network>:<pointId>`, alone or as `{id}`) are resolved fresh from the pick-up point directory and stored as a snapshot of the point (name, address, position, opening hours); an unknown, retired or temporarily closed point, or one whose `maxWeightG` is under `config.parcelWeightG`, is a 400 `pickup_point_refused` on `config.relais.<i>.id`; a network that cannot answer is a 503 `relais_unavailable`. Other ids are your own inline points (a `name` is required), stored as sent and not checked. Answers the GroupBuy as of its own revision, once the read model shows it (read-your-writes).',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      idempotent: true,
      body: merchant ? MerchantPoolCreateInput : PoolCreateInput,
      ...(merchant ? {} : { example: poolCreateExample }),
      success: { status: 201, description: 'The created pool', schema: GroupBuy },
      responseHeaders: { [POSITION_HEADER]: 'Feed position of the write; send it back as X-Min-Position to read your write elsewhere' },
      errors: [400, 401, 403, 404, 503],
      handler: (ctx) => createPool(deps, ctx, ctx.body as MerchantPoolCreateInput, { livemode: deps.production, respond: poolAnswer(ctx.auth!, 201) }),
    });

  const update = (merchant: boolean) =>
    defineRoute({
      method: 'patch',
      path: merchant ? '/api/merchant/pools/{id}' : '/api/pools/{id}',
      summary: 'Update a pool',
      description:
        'Owner only. While DRAFT every field, the money spine included (seller, payout, commission, relais). Once published only marketplaceVisibility (to PRIVATE) and country. LISTED/FEATURED are refused here. PATCH never changes the status: a `status` other than the current one is a 400 `status_not_patchable` (publish with POST …/publish). `sellerId` must be a user of the tenant; `sellerMerchantSlug` a merchant of the tenant the caller owns. A value shaped like a Stellar secret key is refused (400 `secret_key_refused`). A `config` with directory pick-up points is checked as on create (400 `pickup_point_refused`, 503 `relais_unavailable`). The answer carries `refund`: when the delist is eligible (the pool is OPEN, the listing fee was paid less than the tenant’s refund window ago — 72 h by default — and no buyer has paid yet) `{amount, source}` with `source` the ledger transaction of the fee refunded, and the fee is paid back on the ledger to the account it came from (a background job; the pool’s stream then records PoolListingFeeRefunded); otherwise null.',
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
        const { sellerIdentifier, sellerMerchantSlug, config: configInput, ...rest } = ctx.body as PoolUpdateInput;
        const patch: Omit<PoolUpdateInput, 'config' | 'sellerIdentifier' | 'sellerMerchantSlug'> & Pick<PoolPatch, 'config'> = rest;
        const tenantId = ctx.tenant?.id ?? auth.tenantId;
        // Pools are created in their organiser's own tenant: under another tenant's header there is no pool of
        // the caller's, and the seller lookups below must not answer questions about another tenant's users.
        if (tenantId !== auth.tenantId) throw new NotFoundError('pool');
        if (patch.sellerId || sellerIdentifier !== undefined || sellerMerchantSlug !== undefined) {
          patch.sellerId = await resolveSeller(deps, tenantId, auth.userId, { sellerId: patch.sellerId, sellerIdentifier, sellerMerchantSlug });
        }
        if (configInput !== undefined) patch.config = await resolvePoolConfig(deps.relaisDirectory, tenantId, configInput);
        const { actor, policy } = await deps.facts.of(auth, tenantId);
        const { delistRefundWindowHours } = policy;
        if (patch.marketplaceVisibility === 'PRIVATE') await queueDelistRefund(deps, id, delistRefundWindowHours, deps.clock());
        const now = deps.clock().toISOString();
        const { answer } = await executeCommand(deps, {
          stream: poolStream(id),
          aggregate: poolAggregate,
          decide: ({ pool }) =>
            decidePool({ type: 'UpdatePool', data: { patch: patch as PoolPatch, delistRefundWindowHours }, metadata: { actor, now, ip: ctx.ip } }, poolInTenant(pool, tenantId)),
          respond: poolAnswer(auth, 200, ({ events }) => {
            const change = events.find((e) => e.type === 'PoolVisibilityChanged');
            return { refund: change?.type === 'PoolVisibilityChanged' ? change.data.refund : null };
          }),
          ...fromRequest(ctx, tenantId, now),
        });
        return answer;
      },
    });

  const archiveRoute = (method: 'post' | 'delete') =>
    defineRoute({
      method,
      path: '/api/pools/{id}/archive',
      operationId: method === 'post' ? 'archivePool' : 'unarchivePool',
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
        const tenantId = ctx.tenant?.id ?? ctx.auth!.tenantId;
        const actor = await deps.facts.actor(ctx.auth!);
        const now = deps.clock().toISOString();
        const { answer } = await executeCommand(deps, {
          stream: poolStream(id),
          aggregate: poolAggregate,
          decide: ({ pool }) => decidePool({ type: method === 'post' ? 'ArchivePool' : 'UnarchivePool', data: {}, metadata: { actor, now, ip: ctx.ip } }, poolInTenant(pool, tenantId)),
          respond: (outcome) => ({ data: { id, archivedAt: documentOf(outcome).archivedAt } }),
          ...fromRequest(ctx, tenantId, now),
        });
        return answer;
      },
    });

  const publish = (merchant: boolean) =>
    defineRoute({
      method: 'post',
      path: merchant ? '/api/merchant/pools/{id}/publish' : '/api/pools/{id}/publish',
      summary: 'Publish a DRAFT pool (DRAFT → OPEN)',
      description:
        'Owner and organiser. GROUPS pools need at least one unit, FUNDING pools a positive targetAmount. 400 when not DRAFT. Publishing opens the pool’s escrow account on the ledger (docs/escrow.md): master key disabled, the organiser’s linked ledger account and the platform as cosigners (weight 1 each, thresholds 2), a trustline to the stablecoin. The organiser needs a linked ledger account (400 `ledger_account_required`). The answer’s `escrow` names the account and `reclaimAfter`, from when each buyer can take back an unreleased deposit alone.',
      tags: ['Pool CRUD'],
      auth: 'required',
      tenant: 'optional',
      params: PoolIdParams,
      idempotent: true,
      success: { status: 200, description: 'The published pool', schema: GroupBuy },
      errors: [400, 401, 403, 404, 503],
      handler: (ctx) => publishPool(deps, ctx, (ctx.params as { id: string }).id, poolAnswer(ctx.auth!)),
    });

  return [create(false), create(true), update(false), update(true), archiveRoute('post'), archiveRoute('delete'), publish(false), publish(true)];
};

export const PoolCommandSchemas = { PoolCreateInput, MerchantPoolCreateInput, PoolUpdateInput } satisfies Record<string, z.ZodType>;
