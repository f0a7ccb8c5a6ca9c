import { z } from 'zod';
import { ForbiddenError, UnauthorizedError } from '@cagnotte/domain';
import type { Knex } from 'knex';
import { decoyHash, defineRoute, verifyPassword, type Config, type CredentialRow, type EventStore, type RouteDef, type TenantDirectory, type TenantRef } from '@cagnotte/infra';
import { loadAccount } from '../shared/context';
import { AuthTokenResponse, issueSession, userSummaryOf, type SessionDeps } from './session';

export { AuthTokenResponse, UserSummary } from './session';

export const LoginInput = z
  .union([
    z.object({ email: z.string().trim().email().max(320), password: z.string().min(1).max(1024) }).strict(),
    z.object({ phone: z.string().trim().min(5).max(20), password: z.string().min(1).max(1024) }).strict(),
  ])
  .describe('LoginInput: `{email, password}` or `{phone, password}`');

export interface AuthRouteDeps extends SessionDeps {
  knex: Knex;
  /** Resolves the X-Service-Tenant of a login (request routing, as the HTTP kit does). */
  tenants: TenantDirectory;
  /** The account streams: a login answers the account as its stream says. */
  store: EventStore;
  config: Pick<Config, 'DEFAULT_TENANT' | 'RATE_LIMIT_LOGIN_PER_MINUTE' | 'RATE_LIMIT_WINDOW_SECONDS'>;
}

const headerTenant = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.trim().toLowerCase() || undefined;

export const makeAuthCommandRoutes = (deps: AuthRouteDeps): RouteDef[] => {
  const { knex, tenants, store, sessions, config } = deps;
  /** The tenant named in the header; without one, the only tenant where this email or phone exists, else the default. */
  const findCredentials = async (identifier: { email?: string; phone?: string }, slug: string | undefined): Promise<CredentialRow | null> => {
    let tenant: TenantRef | null = null;
    if (slug) {
      tenant = await tenants.bySlug(slug);
      if (!tenant) return null;
    }
    const q = knex<CredentialRow>('credentials');
    if (identifier.email) q.whereRaw('lower(email) = lower(?)', [identifier.email]);
    else q.where('phone', identifier.phone ?? '');
    if (tenant) q.where({ tenant_id: tenant.id });
    const rows = await q.limit(2);
    if (rows.length === 1) return rows[0]!;
    if (rows.length > 1 && !tenant) {
      const fallback = await tenants.bySlug(config.DEFAULT_TENANT);
      return rows.find((r) => r.tenant_id === fallback?.id) ?? null;
    }
    return null;
  };

  const login = defineRoute({
    method: 'post',
    path: '/api/auth/login/password',
    operationId: 'loginWithPassword',
    summary: 'Log in with email or phone and password',
    description:
      'Public, rate-limited per IP. `X-Service-Tenant` selects the tenant (without it: the only tenant holding this email or phone). 401 for wrong credentials without saying which part; 403 for a blocked account. Send `X-Device-Id` (uuid) to keep the device id.',
    tags: ['Auth'],
    auth: 'none',
    body: LoginInput,
    rateLimit: { name: 'login', limit: config.RATE_LIMIT_LOGIN_PER_MINUTE, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS },
    success: { status: 200, description: 'Session issued', schema: AuthTokenResponse },
    errors: [400, 401, 403, 429],
    handler: async (ctx) => {
      const body = ctx.body as z.infer<typeof LoginInput>;
      const cred = await findCredentials('email' in body ? { email: body.email } : { phone: body.phone }, headerTenant(ctx.req.headers['x-service-tenant']));
      const ok = await verifyPassword(cred?.password_hash ?? (await decoyHash()), body.password);
      if (!cred || !ok) throw new UnauthorizedError('Invalid credentials', 'invalid_credentials');
      if (cred.blocked_at) throw new ForbiddenError('account_blocked', 'This account is blocked');
      const [account, tenant] = await Promise.all([loadAccount(store, cred.user_id), tenants.byId(cred.tenant_id)]);
      if (account.status === 'none' || !tenant) throw new UnauthorizedError('Invalid credentials', 'invalid_credentials');
      return { data: await issueSession(deps, userSummaryOf(account), tenant, ctx) };
    },
  });

  const logout = defineRoute({
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logout',
    summary: 'Log out (revokes the session)',
    description: 'Idempotent: always 200, with no, an invalid or an already revoked token.',
    tags: ['Auth'],
    auth: 'optional',
    ignoresInput: true,
    success: { status: 200, description: 'Logged out', schema: z.object({ message: z.string() }) },
    errors: [],
    handler: async (ctx) => {
      if (ctx.auth) await sessions.revoke(ctx.auth.sessionId);
      return { data: { message: 'Logged out' } };
    },
  });

  return [login, logout];
};
