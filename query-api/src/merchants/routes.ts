import { z } from 'zod';
import { ForbiddenError, defineRoute, type RouteDef, type Services } from '@cagnotte/infra';

export const MerchantProfile = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    slug: z.string(),
    name: z.string(),
    status: z.literal('ACTIVE'),
    profile: z.record(z.string(), z.unknown()).describe('Storefront links, address, coordinates, categories'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('MerchantProfile');

interface MerchantRow {
  id: string;
  tenant_id: string;
  slug: string;
  name: string;
  status: string;
  profile: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

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
      return {
        data: {
          id: row.id,
          tenantId: row.tenant_id,
          slug: row.slug,
          name: row.name,
          status: 'ACTIVE',
          profile: row.profile,
          createdAt: new Date(row.created_at).toISOString(),
          updatedAt: new Date(row.updated_at).toISOString(),
        },
      };
    },
  }),
];
