import { evolveMerchant, type ExistingMerchant, type Merchant } from '@cagnotte/domain';
import { merchantFromRow, type MerchantRow } from '@cagnotte/infra';
import type { Projection } from '../runtime';

const HANDLED = new Set(['MerchantOnboarded', 'MerchantProfileUpdated', 'MerchantActivated', 'MerchantSuspended']);

/** Merchant profiles: for /api/merchant/profile, the catalogue and seller resolution by slug. */
export const merchantsProjection: Projection = {
  name: 'merchants',
  tables: ['rm_merchants'],
  handles: (type) => HANDLED.has(type),
  async apply(trx, event, table) {
    const merchantId = (event.data as { merchantId: string }).merchantId;
    const row: MerchantRow | undefined = await trx(table('rm_merchants')).where({ id: merchantId }).first();
    if (row && BigInt(row.revision) >= event.revision) return;
    const before: Merchant = row ? merchantFromRow(row) : { status: 'none' };
    const next = evolveMerchant(before, event);
    if (next.status === 'none') return;
    const after: ExistingMerchant = next;
    await trx(table('rm_merchants'))
      .insert({
        id: after.id,
        tenant_id: after.tenantId,
        owner_user_id: after.ownerUserId,
        slug: after.slug,
        name: after.profile.name,
        status: after.status,
        profile: JSON.stringify(after.profile),
        created_at: after.onboardedAt,
        updated_at: after.updatedAt,
        revision: event.revision.toString(),
      })
      .onConflict('id')
      .merge();
  },
};
