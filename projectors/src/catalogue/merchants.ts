import { isMerchantEvent } from '@cagnotte/event-schemas';
import { CATALOGUE_TABLES, foldMerchant, merchantDocOfRow, merchantRowOf, type MerchantRow } from '@cagnotte/read-models';
import type { Projection } from '../runtime';

/** Merchant profiles: for /api/merchant/profile, the catalogue and seller resolution by slug. Folded with the read model's own fold. */
export const merchantsProjection: Projection = {
  name: 'merchants',
  tables: [CATALOGUE_TABLES.merchants],
  handles: (type) => isMerchantEvent({ type }),
  async apply(trx, event, table) {
    if (!isMerchantEvent(event)) return;
    const row: MerchantRow | undefined = await trx<MerchantRow>(table(CATALOGUE_TABLES.merchants)).where({ id: event.data.merchantId }).first();
    const before = row ? merchantDocOfRow(row) : null;
    const after = foldMerchant(before, event, event.revision);
    // Nothing to write: an event already folded (a replay), or one before the merchant was onboarded.
    if (!after || after === before) return;
    await trx(table(CATALOGUE_TABLES.merchants)).insert(merchantRowOf(after)).onConflict('id').merge();
  },
};
