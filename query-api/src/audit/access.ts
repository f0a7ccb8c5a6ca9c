import { NotFoundError } from '@cagnotte/domain/errors';
import type { AuthContext, TenantRef } from '@cagnotte/infra';
import type { AuditReadModel } from '@cagnotte/read-models';

/**
 * Who reads a pool's history: the auditors of the pool's tenant and its organiser; a reservation's history, also that
 * reservation's buyer. The pool must be in the request's tenant. Anyone else gets the 404 a missing pool (or
 * reservation) gets: another owner's resource is a 404 (the contract), so a refusal says nothing of what exists.
 * Answers who they are to it: only auditors see the personal data events hold (the IP of a request).
 */
export const requireHistoryReader = async (
  audit: AuditReadModel,
  ctx: { auth: AuthContext | null; tenant: TenantRef | null },
  poolId: string,
  reservationId?: string,
): Promise<'AUDITOR' | 'ORGANISER' | 'BUYER'> => {
  const refused = () => new NotFoundError(reservationId === undefined ? 'pool' : 'reservation');
  const auth = ctx.auth;
  const pool = await audit.pool(poolId);
  if (!auth || !pool || !ctx.tenant || pool.tenantId !== ctx.tenant.id) throw refused();
  // A reservation's history needs the reservation in this pool, whoever asks.
  const buyer = reservationId === undefined ? null : await audit.buyerOf(poolId, reservationId);
  if (reservationId !== undefined && buyer === null) throw refused();
  // Auditors are accounts of the tenant they audit: a token of another tenant never counts.
  if (auth.tenantId === pool.tenantId && (await audit.isAuditor(pool.tenantId, auth.userId))) return 'AUDITOR';
  if (pool.organiserId === auth.userId) return 'ORGANISER';
  if (buyer !== null && buyer === auth.userId) return 'BUYER';
  throw refused();
};
