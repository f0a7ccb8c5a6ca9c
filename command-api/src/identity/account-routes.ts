import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Knex } from 'knex';
import { NotFoundError, ValidationError, accountAggregate, checkBusinessIdentity, decideAccount } from '@cagnotte/domain';
import {
  PASSWORD_RESET_TTL_SECONDS,
  SSO_CODE_TTL_SECONDS,
  defineRoute,
  hashPassword,
  type Config,
  type CredentialStore,
  type Logger,
  type MailOutbox,
  type OneTimeUse,
  type RouteDef,
  type TenantDirectory,
  type TenantRef,
} from '@cagnotte/infra';
import type { Request } from 'express';
import { registerUser } from './register';
import { ACCOUNT_PROJECTIONS, accountStream, awaitProjections, loadAccount, metadataFor, positionHeader, type AccountCommandDeps } from '../shared/context';
import { AuthTokenResponse, issueSession, userSummaryOf, type SessionDeps } from './session';
import { checkDest, checkReturnTo, sessionCookie } from './redirects';
import { executeCommand, fromRequest } from '../shared/execute-command';

/** Roles a partner may give at signup. Anything more (organiser) is earned through its own flow. */
export const SIGNUP_ROLES = ['user'] as const;

const Email = z.string().trim().email().max(320);

export const SimpleRegisterInput = z
  .object({
    email: Email,
    password: z.string().min(8).max(1024),
    phone: z.string().trim().min(5).max(20).optional(),
    displayName: z.string().trim().min(1).max(200).optional(),
    firstName: z.string().trim().min(1).max(100).optional(),
    lastName: z.string().trim().min(1).max(100).optional(),
    accountType: z.enum(['CONSUMER', 'BUSINESS']).default('CONSUMER'),
    companyName: z.string().trim().min(1).max(120).optional(),
    siret: z.string().regex(/^\d{14}$/, 'must be exactly 14 digits').optional(),
    taxCountry: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be exactly 2 letters (ISO 3166-1 alpha-2)')
      .transform((c) => c.toUpperCase())
      .optional(),
    taxId: z.string().trim().min(4).max(40).optional(),
    rccm: z.string().trim().min(4).max(40).optional(),
    role: z.string().optional().describe(`Signup role, one of: ${SIGNUP_ROLES.join(', ')} (default user)`),
    acceptFeeMandate: z.boolean().optional().describe('Record acceptance of the current FEE mandate text with the account'),
    country: z.string().regex(/^[A-Z]{2}$/).optional().describe('Default FR'),
    timezone: z
      .string()
      .max(64)
      .refine((tz) => Intl.supportedValuesOf('timeZone').includes(tz) || tz === 'UTC', 'must be an IANA time zone')
      .optional()
      .describe('Default Europe/Paris'),
  })
  .describe('SimpleRegisterInput');

const MessageResponse = z.object({ message: z.string() });

/** Fingerprinted in place of a password hash when there is no account, so both paths hash the same. */
const DECOY_HASH = '$2b$12$' + 'x'.repeat(53);

/** forgot-password never answers sooner than this after it starts, account or not. */
export const FORGOT_PASSWORD_FLOOR_MS = 40;

const fingerprint = (passwordHash: string) => createHash('sha256').update(passwordHash).digest('hex').slice(0, 16);

export interface AccountRouteDeps extends AccountCommandDeps, SessionDeps {
  knex: Knex;
  credentials: CredentialStore;
  oneTime: OneTimeUse;
  mail: Pick<MailOutbox, 'enqueueWhen'>;
  /** SSO start: the tenant a code was minted for (request routing, as the HTTP kit resolves X-Service-Tenant). */
  tenants: Pick<TenantDirectory, 'byId'>;
  logger: Logger;
  config: Pick<Config, 'RATE_LIMIT_WINDOW_SECONDS' | 'RATE_LIMIT_REGISTER_PER_MINUTE' | 'RATE_LIMIT_PASSWORD_RESET_PER_MINUTE' | 'PASSWORD_RESET_URL' | 'APP_ENV'>;
}

export const makeAccountRoutes = (deps: AccountRouteDeps): RouteDef[] => {
  const { clock, config: cfg, credentials, tokens, sessions, oneTime, mail: outbox, tenants, logger, knex } = deps;
  const limit = (name: string, perMinute: number) => ({ name, limit: perMinute, windowSeconds: cfg.RATE_LIMIT_WINDOW_SECONDS });

  const register = defineRoute({
    method: 'post',
    path: '/api/auth/register/simple',
    operationId: 'register',
    summary: 'White-label signup: create an account and a session',
    description: [
      'Public, gated by the tenant\'s white-label toggle (404 when off), rate-limited per IP. The tenant is `X-Service-Tenant` (the default tenant when absent), also recorded as `signupSource`.',
      'Skips the one-time-code and PIN steps of the canonical flow. Defaults: country FR, currency EUR, timezone Europe/Paris.',
      '`accountType: BUSINESS` needs `companyName`, plus a `siret` (France) or a `taxCountry` with a `taxId` or `rccm` (other countries), for DAC7.',
      `\`role\` must be one of ${SIGNUP_ROLES.join(', ')}. 409 when the email or phone is taken in the tenant.`,
    ].join('\n\n'),
    tags: ['Auth'],
    auth: 'none',
    tenant: 'optional',
    gate: 'tenant',
    body: SimpleRegisterInput,
    rateLimit: limit('register', cfg.RATE_LIMIT_REGISTER_PER_MINUTE),
    success: { status: 200, description: 'Account created, session issued', schema: AuthTokenResponse },
    errors: [400, 404, 409, 429],
    handler: async (ctx) => {
      const tenant = ctx.tenant!;
      const b = ctx.body;
      const role = b.role ?? 'user';
      if (!(SIGNUP_ROLES as readonly string[]).includes(role)) {
        throw new ValidationError({ role: [`must be one of: ${SIGNUP_ROLES.join(', ')}`] });
      }
      // The business identity is checked before anything is hashed or claimed (the decider checks it again).
      const business = b.accountType === 'BUSINESS' ? b : null;
      if (business) {
        const checked = checkBusinessIdentity(business);
        if ('errors' in checked) throw new ValidationError(checked.errors, 'A valid business identity is required (DAC7)', 'business_identity_invalid');
      }
      const now = clock().toISOString();
      const displayName = b.displayName ?? ([b.firstName, b.lastName].filter(Boolean).join(' ') || b.email.split('@')[0]!);
      const { position, account } = await registerUser(
        deps,
        {
          tenantId: tenant.id,
          email: b.email,
          phone: b.phone ?? null,
          displayName,
          role: 'user',
          accountType: b.accountType,
          country: b.country,
          timezone: b.timezone,
          signupSource: tenant.slug,
          password: b.password,
          business: business && { companyName: business.companyName, siret: business.siret, taxCountry: business.taxCountry, taxId: business.taxId, rccm: business.rccm },
          mandates: b.acceptFeeMandate ? [{ kind: 'FEE', ip: ctx.ip.slice(0, 64) }] : [],
        },
        metadataFor(ctx, tenant.id, now),
      );
      // Answered from the registration itself; the wait is for the caller's next read (/api/auth/me): the session that
      // reads is issued after the write, so it has no write of its own for the read side to wait for (shared/execute-command.ts).
      await awaitProjections(deps.waiter, ACCOUNT_PROJECTIONS, position, deps.readYourWritesMs);
      return { data: await issueSession(deps, userSummaryOf(account), tenant, ctx), headers: positionHeader(position) };
    },
  });

  const forgot = defineRoute({
    method: 'post',
    path: '/api/auth/forgot-password',
    operationId: 'forgotPassword',
    summary: 'Send a password-reset link',
    description:
      'Public, gated (404 when the white-label toggle is off), rate-limited per IP. Always 200 whatever the email: nobody learns whether an account exists. When it does, a 30-minute single-use `password-reset` token is e-mailed (through the mail outbox). Outside production the token is also returned as `resetToken`.',
    tags: ['Auth'],
    auth: 'none',
    tenant: 'optional',
    gate: 'tenant',
    body: z.object({ email: Email }),
    rateLimit: limit('forgot-password', cfg.RATE_LIMIT_PASSWORD_RESET_PER_MINUTE),
    success: { status: 200, description: 'Accepted', schema: z.object({ message: z.string(), resetToken: z.string().optional() }) },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const started = performance.now();
      const tenant = ctx.tenant!;
      const message = 'If an account exists for this email, a reset link has been sent.';
      const cred = await credentials.byEmail(tenant.id, ctx.body.email);
      const real = cred && !cred.blocked_at ? cred : null;
      // The same work whether or not the account exists (a token signed, a mail written, the outbox statement run),
      // under a fixed floor: the answer takes as long either way, so its timing tells nobody anything.
      const { token } = tokens.signPurpose(
        'password-reset',
        { sub: real?.user_id ?? randomUUID(), tid: tenant.id, pwf: fingerprint(real?.password_hash ?? DECOY_HASH) },
        PASSWORD_RESET_TTL_SECONDS,
      );
      const link = new URL(cfg.PASSWORD_RESET_URL);
      link.searchParams.set('token', token);
      const mail = {
        tenantId: tenant.id,
        kind: 'password-reset',
        to: real?.email ?? ctx.body.email,
        subject: `${tenant.name}: reset your password`,
        text: `Someone asked to reset the password of your ${tenant.name} account.\n\nTo choose a new password, open this link within 30 minutes (it works once):\n${link.toString()}\n\nIf it was not you, ignore this message: your password stays as it is.`,
      };
      // Queued before the answer (an acknowledged reset is never lost in a crash); without an account the same
      // statement runs and inserts nothing. What a commit costs more than that is hidden under the floor below.
      await outbox.enqueueWhen(real !== null, mail);
      // And no answer before a fixed floor: what is left of a difference (a row read or not) disappears under it.
      const wait = FORGOT_PASSWORD_FLOOR_MS - (performance.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (!real) return { data: { message } };
      return { data: cfg.APP_ENV === 'production' ? { message } : { message, resetToken: token } };
    },
  });

  const reset = defineRoute({
    method: 'post',
    path: '/api/auth/reset-password',
    operationId: 'resetPassword',
    summary: 'Choose a new password with a reset token',
    description:
      'Public, gated, rate-limited per IP. Verifies the `password-reset` token (HS256, issuer, audience, 30-minute expiry, single use, issued for the current password), sets the new password and revokes every active session of the account. 400 for an invalid, expired, used or superseded token.',
    tags: ['Auth'],
    auth: 'none',
    tenant: 'optional',
    gate: 'tenant',
    body: z.object({ token: z.string().min(1).max(4096), password: z.string().min(8).max(1024) }),
    rateLimit: limit('reset-password', cfg.RATE_LIMIT_PASSWORD_RESET_PER_MINUTE),
    success: { status: 200, description: 'Password changed; all sessions revoked', schema: MessageResponse },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const tenant = ctx.tenant!;
      const invalid = () => new ValidationError({ token: ['is invalid, expired or already used'] }, 'Invalid or expired reset token', 'invalid_reset_token');
      const claims = tokens.verifyPurpose('password-reset', ctx.body.token);
      if (!claims || claims.tid !== tenant.id) throw invalid();
      const cred = await credentials.byUser(claims.sub);
      if (!cred || cred.blocked_at || fingerprint(cred.password_hash) !== claims.pwf) throw invalid();
      const ttl = claims.exp - Math.floor(Date.now() / 1000);
      if (!(await oneTime.consume('password-reset', claims.jti, ttl + 5))) throw invalid();
      let revoked = 0;
      try {
        const passwordHash = await hashPassword(ctx.body.password);
        await knex.transaction(async (trx) => {
          await credentials.setPassword(cred.user_id, passwordHash, trx);
          revoked = await sessions.revokeAllForUser(cred.user_id, trx);
        });
      } catch (e) {
        await oneTime.release('password-reset', claims.jti);
        throw e;
      }
      // The audit record follows the change it reports; the security state above is already consistent.
      const now = clock().toISOString();
      await executeCommand(deps, {
        stream: accountStream(cred.user_id),
        aggregate: accountAggregate,
        decide: (state) => decideAccount({ type: 'RecordPasswordReset', data: { sessionsRevoked: revoked, ip: ctx.ip.slice(0, 64) }, metadata: { now } }, state),
        ...fromRequest(ctx, tenant.id, now),
      }).catch((e: unknown) => logger.error({ err: e, userId: cred.user_id }, 'password reset audit event not recorded'));
      return { data: { message: 'Password updated. Every session was signed out: log in again.' } };
    },
  });

  const handoff = defineRoute({
    method: 'post',
    path: '/api/auth/sso/handoff',
    operationId: 'createSsoHandoff',
    summary: 'Get a one-time SSO code for a top-level navigation',
    description:
      'Bearer, gated by the user\'s tenant. Answers a 2-minute single-use `partner-sso` code; the front end then navigates the browser (not XHR) to `GET /api/auth/sso/start?code=…`.',
    tags: ['Auth'],
    auth: 'required',
    gate: 'user',
    success: { status: 200, description: 'The code', schema: z.object({ code: z.string(), expiresAt: z.string() }) },
    errors: [401, 404],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const tenant = ctx.tenant!;
      const { token, expiresAt } = tokens.signPurpose('partner-sso', { sub: auth.userId, tid: tenant.id }, SSO_CODE_TTL_SECONDS);
      return { data: { code: token, expiresAt: expiresAt.toISOString() } };
    },
  });

  /**
   * SSO start is gated by the tenant the code was minted for (a browser navigation carries no tenant header). A
   * code that does not verify, whose tenant has the toggle off, or that comes with another tenant's header is a
   * 404 before anything else is looked at.
   */
  const ssoGate = async (req: Request): Promise<TenantRef> => {
    const gone = () => new NotFoundError('sso_code');
    const code = req.query.code;
    const claims = typeof code === 'string' && code.length <= 4096 ? tokens.verifyPurpose('partner-sso', code) : null;
    if (!claims) throw gone();
    const tenant = await tenants.byId(claims.tid);
    if (!tenant || !tenant.whiteLabel) throw gone();
    const header = req.headers['x-service-tenant'];
    const named = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
    if (named && named !== tenant.slug) throw gone();
    return tenant;
  };

  const start = defineRoute({
    method: 'get',
    path: '/api/auth/sso/start',
    operationId: 'startSso',
    summary: 'Start a browser session from an SSO code (redirect)',
    description: [
      'Public, gated, a top-level browser navigation. Verifies the code (signature, kind `partner-sso`, 2-minute expiry, single use), mints a fresh session and sets it as the first-party cookie `service_session` (HttpOnly; Secure; SameSite=None; Path=/; 7 days), then answers **307** with `Location`:',
      '`returnTo` when given (an absolute URL whose scheme, host and port equal one of the tenant\'s approved origins), else `dest` (an internal path such as `/pools/123`: no scheme, no `//`, no backslash, no encoded tricks), else `/onboarding`.',
      'A `returnTo` or `dest` that fails those rules is a 400 (the code is not spent). An unknown, expired or replayed code is a 404, and so is a code sent with the `X-Service-Tenant` of another tenant than the one it was minted for, or whose tenant has the white-label toggle off. No envelope on success.',
    ].join('\n\n'),
    tags: ['Auth'],
    auth: 'none',
    gate: ssoGate,
    query: z.object({
      code: z.string().min(1).max(4096),
      returnTo: z.string().max(2048).optional(),
      dest: z.string().max(2048).optional(),
    }),
    success: { status: 307, description: 'Redirect with `Location` and `Set-Cookie: service_session=…`', schema: null },
    errors: [400, 404],
    responseHeaders: { Location: 'Where the browser goes next', 'Set-Cookie': 'service_session=<token>; Path=/; HttpOnly; Secure; SameSite=None' },
    handler: async (ctx) => {
      const q = ctx.query;
      const tenant = ctx.tenant!;
      const gone = () => new NotFoundError('sso_code');
      const claims = tokens.verifyPurpose('partner-sso', q.code);
      if (!claims || claims.tid !== tenant.id) throw gone();
      const target = q.returnTo !== undefined ? checkReturnTo(q.returnTo, tenant.approvedOrigins) : q.dest !== undefined ? checkDest(q.dest) : '/onboarding';
      const account = await loadAccount(deps.store, claims.sub);
      const cred = await credentials.byUser(claims.sub);
      if (account.status === 'none' || !cred || cred.blocked_at || cred.tenant_id !== tenant.id) throw gone();
      const ttl = claims.exp - Math.floor(Date.now() / 1000);
      if (!(await oneTime.consume('partner-sso', claims.jti, ttl + 5))) throw gone();
      const session = await issueSession(deps, userSummaryOf(account), tenant, ctx);
      return { redirect: target, headers: { 'Set-Cookie': sessionCookie(session.token, session.expiresIn) } };
    },
  });

  return [register, forgot, reset, handoff, start];
};
