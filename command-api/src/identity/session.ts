import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isUuid, type RegisteredAccount } from '@cagnotte/domain';
import { UserSummarySchema } from '@cagnotte/read-models';
import { ACCESS_TOKEN_TTL_SECONDS, type RequestContext, type SessionStore, type TenantRef, type TokenService } from '@cagnotte/infra';

export const UserSummary = UserSummarySchema.extend({ tenant: z.string().describe('tenant slug') });

export const AuthTokenResponse = z
  .object({
    token: z.string().describe('JWT, HS256, valid 7 days; send as `Authorization: Bearer <token>`'),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int().describe('seconds'),
    expiresAt: z.string().describe('date-time'),
    deviceId: z.string().uuid().describe('Stable per device: send it back as X-Device-Id on the next login'),
    user: UserSummary,
  })
  .describe('AuthTokenResponse');

type AnyCtx = Pick<RequestContext<unknown, unknown, unknown>, 'req' | 'ip'>;

/** What issuing a session writes and signs with. */
export interface SessionDeps {
  tokens: TokenService;
  sessions: SessionStore;
}

type UserSummaryFields = Omit<z.infer<typeof UserSummary>, 'tenant'>;

/**
 * The user a session answers with, from the account as its stream says (the fields of the identity read model's
 * summary: role and account type as granted and captured so far), so an answer never waits on a projection.
 */
export const userSummaryOf = (a: Pick<RegisteredAccount, 'userId' | 'email' | 'phone' | 'displayName' | 'role' | 'accountType'>): UserSummaryFields => ({
  id: a.userId,
  email: a.email,
  phone: a.phone,
  displayName: a.displayName,
  role: a.role,
  accountType: a.accountType,
});

/** A new server-side session and its 7-day access token (login, register-simple, SSO start). */
export const issueSession = async ({ tokens, sessions }: SessionDeps, user: UserSummaryFields, tenant: TenantRef, ctx: AnyCtx) => {
  const incomingDevice = ctx.req.headers['x-device-id'];
  const deviceId = typeof incomingDevice === 'string' && isUuid(incomingDevice) ? incomingDevice.toLowerCase() : randomUUID();
  const sessionId = randomUUID();
  const { token, expiresAt } = tokens.signAccess({ sub: user.id, sid: sessionId, tid: tenant.id, did: deviceId });
  await sessions.create({
    id: sessionId,
    userId: user.id,
    tenantId: tenant.id,
    deviceId,
    expiresAt,
    ip: ctx.ip,
    userAgent: ctx.req.headers['user-agent'] ?? null,
  });
  return {
    token,
    tokenType: 'Bearer' as const,
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
    expiresAt: expiresAt.toISOString(),
    deviceId,
    user: { ...user, tenant: tenant.slug },
  };
};

export { gatedPublicTenant, gatedUserTenant } from '@cagnotte/infra';
