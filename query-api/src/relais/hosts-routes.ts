import { z } from 'zod';
import { ForbiddenError, NotFoundError, ValidationError } from '@cagnotte/domain/errors';
import { defineRoute, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { RelaisHost, RelaisHostDay, RelaisHostStatus, relaisHostView, type RelaisHostDoc, type RelaisHostReader } from '@cagnotte/read-models';

// Community hosts on the query side (docs/relais.md, part B). An organiser of the tenant sees every host of the tenant;
// a member sees their own; anyone else (another tenant's organiser included) finds none.

export interface HostQueryDeps {
  hosts: RelaisHostReader;
  accounts: { find(userId: string): Promise<{ role: string } | null> };
  /** Read-your-writes on the relais-hosts projection (query-api/src/shared/consistency.ts). */
  awaitProjections?: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
}

const CalendarDay = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date YYYY-MM-DD');
const HostParams = z.object({ hostId: z.string().uuid() });
const ListQuery = z.object({ status: RelaisHostStatus.optional() }).strict();
const DaysQuery = z
  .object({ from: CalendarDay.optional(), to: CalendarDay.optional() })
  .strict()
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] });

const today = () => new Date().toISOString().slice(0, 10);
const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export const makeHostQueryRoutes = ({ hosts, accounts, awaitProjections }: HostQueryDeps): RouteDef[] => {
  const callerOf = async (ctx: RequestContext<unknown, unknown, unknown>) => {
    const auth = ctx.auth!;
    const organiser = (await accounts.find(auth.userId))?.role === 'organiser';
    return { userId: auth.userId, tenantId: auth.tenantId, organiser, headerTenant: ctx.tenant?.id ?? auth.tenantId };
  };
  /** The host if the caller may see it: theirs, or their tenant's as its organiser; otherwise none. */
  const visibleHost = async (ctx: RequestContext<unknown, unknown, { hostId: string }>): Promise<RelaisHostDoc> => {
    const caller = await callerOf(ctx);
    await awaitProjections?.(ctx);
    const host = caller.headerTenant === caller.tenantId ? await hosts.find(caller.tenantId, ctx.params.hostId) : null;
    if (!host || !(caller.organiser || host.userId === caller.userId)) throw new NotFoundError('host');
    return host;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/relais/hosts',
      operationId: 'listRelaisHosts',
      summary: 'List community hosts',
      description: 'An organiser of the tenant: every host of the tenant (filter `status`), oldest application first. Any other member: their own host(s).',
      tags: ['Relais'],
      auth: 'required',
      tenant: 'optional',
      query: ListQuery,
      success: { status: 200, description: 'The hosts', schema: z.object({ items: z.array(RelaisHost) }).describe('RelaisHostList') },
      errors: [400, 401, 403, 404],
      handler: async (ctx) => {
        const caller = await callerOf(ctx);
        if (caller.headerTenant !== caller.tenantId) throw new ForbiddenError('tenant_mismatch', 'You are not a member of this tenant');
        await awaitProjections?.(ctx);
        const items = await hosts.list(caller.tenantId, { status: ctx.query.status, ...(caller.organiser ? {} : { userId: caller.userId }) });
        return { data: { items: items.map(relaisHostView) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/relais/hosts/{hostId}',
      operationId: 'getRelaisHost',
      summary: 'Retrieve a community host',
      description: 'The host itself, or an organiser of its tenant; 404 to anyone else.',
      tags: ['Relais'],
      auth: 'required',
      tenant: 'optional',
      params: HostParams,
      success: { status: 200, description: 'The host', schema: RelaisHost },
      errors: [400, 401, 404],
      handler: async (ctx) => ({ data: relaisHostView(await visibleHost(ctx)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/relais/hosts/{hostId}/bookings',
      operationId: 'listRelaisHostBookings',
      summary: 'A community host’s booked days',
      description: 'The days from `from` (default today) to `to` (default 30 days later, at most 366 days after `from`) that hold parcels: per day the parcels booked, the capacity and what is left, and the shipments booked. The host, or an organiser of its tenant.',
      tags: ['Relais'],
      auth: 'required',
      tenant: 'optional',
      params: HostParams,
      query: DaysQuery,
      success: { status: 200, description: 'The booked days', schema: z.object({ hostId: z.string().uuid(), from: z.string(), to: z.string(), days: z.array(RelaisHostDay) }).describe('RelaisHostBookings') },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        const host = await visibleHost(ctx);
        const from = ctx.query.from ?? today();
        const to = ctx.query.to ?? plusDays(from, 30);
        if (to > plusDays(from, 366)) throw new ValidationError({ to: ['at most 366 days after from'] });
        return { data: { hostId: host.hostId, from, to, days: await hosts.days(host, { from, to }) } };
      },
    }),
  ];
};
