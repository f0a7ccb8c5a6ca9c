import { z } from 'zod';
import { ForbiddenError } from '@cagnotte/domain/errors';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { MerchantCard, merchantDocOfRow, toMerchantCard, type CatalogueReadModel } from '@cagnotte/read-models';

export const MerchantProfile = MerchantCard.extend({
  tenantId: z.string().uuid(),
  status: z.literal('ACTIVE'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).describe('MerchantProfile');

export const makeMerchantQueryRoutes = ({ catalogue }: { catalogue: CatalogueReadModel }): RouteDef[] => [
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
      const row = await catalogue.activeMerchantOf(auth.userId, auth.tenantId);
      if (!row) throw new ForbiddenError('merchant_profile_required', 'An active merchant profile is required');
      const card = toMerchantCard(merchantDocOfRow(row).merchant);
      return {
        data: { ...card, tenantId: row.tenant_id, status: 'ACTIVE', createdAt: new Date(row.created_at).toISOString(), updatedAt: new Date(row.updated_at).toISOString() },
      };
    },
  }),
];
