import { NotFoundError } from '@cagnotte/domain';
import type { AuthContext, TenantDirectory, TenantRef } from './route';

/** White-label gated public endpoints: the tenant of `X-Service-Tenant` (or the default) must have the toggle on, else 404. */
export const gatedPublicTenant = (tenant: TenantRef | null): TenantRef => {
  if (!tenant || !tenant.whiteLabel) throw new NotFoundError('resource');
  return tenant;
};

/** White-label gated signed-in endpoints: the user's own tenant must have the toggle on, else 404. */
export const gatedUserTenant = async (services: { tenants: TenantDirectory }, auth: AuthContext): Promise<TenantRef> =>
  gatedPublicTenant(await services.tenants.byId(auth.tenantId));

/** Whether `origin` (scheme, host and port) is one of `approved` (URLs; only their origins count). */
export const isApprovedOrigin = (approved: string[], origin: string): boolean =>
  approved.some((o) => {
    try {
      return new URL(o).origin === origin;
    } catch {
      return false;
    }
  });
