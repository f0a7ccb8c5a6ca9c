import { z } from 'zod';
import { ForbiddenError, MerchantCard, defineRoute, merchantFromRow, toMerchantCard, type MerchantRow, type RouteDef, type Services } from '@cagnotte/infra';

export const MerchantProfile = MerchantCard.extend({
  tenantId: z.string().uuid(),
  status: z.literal('ACTIVE'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).describe('MerchantProfile');

export const makeMerchantQueryRoutes = ({ services }: { services: Services }): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/merchant/profile',
    summary: 'My merchant profile',
    description: '403 without an ACTIVE merchant profile in my tenant.',
    tags: ['Pool CRUD'],
    auth: 'required',
    success: { status: 200, description: 'The merchant profile', schema: MerchantProfile },
    errors: [401, 403],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const row = await services.knex<MerchantRow>('rm_merchants').where('owner_user_id', auth.userId).andWhere('tenant_id', auth.tenantId).andWhere('status', 'ACTIVE').first();
      if (!row) throw new ForbiddenError('merchant_profile_required', 'An active merchant profile is required');
      const card = toMerchantCard(merchantFromRow(row));
      return {
        data: { ...card, tenantId: row.tenant_id, status: 'ACTIVE', createdAt: new Date(row.created_at).toISOString(), updatedAt: new Date(row.updated_at).toISOString() },
      };
    },
  }),
];
