import type { Projection } from '../runtime';

const HANDLED = new Set(['TenantCreated', 'AccountRegistered', 'BusinessIdentityCaptured', 'LedgerAccountLinked', 'RoleGranted']);

/** Tenants and accounts, for lookups by slug, id and email. Upserts keep the newest revision only. */
export const identityProjection: Projection = {
  name: 'identity',
  tables: ['rm_tenants', 'rm_accounts'],
  handles: (type) => HANDLED.has(type),
  async apply(trx, event, table) {
    const revision = event.revision.toString();
    switch (event.type) {
      case 'TenantCreated': {
        const d = event.data;
        await trx.raw(
          `INSERT INTO ?? (id, slug, name, white_label, approved_origins, created_at, revision) VALUES (?, ?, ?, ?, ?::jsonb, ?, ?)
           ON CONFLICT (id) DO UPDATE SET slug = EXCLUDED.slug, name = EXCLUDED.name, white_label = EXCLUDED.white_label,
             approved_origins = EXCLUDED.approved_origins, revision = EXCLUDED.revision
           WHERE ??.revision < EXCLUDED.revision`,
          [table('rm_tenants'), d.tenantId, d.slug, d.name, d.whiteLabel, JSON.stringify(d.approvedOrigins), d.createdAt, revision, table('rm_tenants')],
        );
        return;
      }
      case 'AccountRegistered': {
        const d = event.data;
        await trx(table('rm_accounts'))
          .insert({
            id: d.userId,
            tenant_id: d.tenantId,
            email: d.email,
            phone: d.phone,
            display_name: d.displayName,
            role: d.role,
            account_type: d.accountType,
            country: d.country,
            currency: d.currency,
            timezone: d.timezone,
            signup_source: d.signupSource,
            registered_at: d.registeredAt,
            revision,
          })
          .onConflict('id')
          .ignore();
        return;
      }
      case 'BusinessIdentityCaptured': {
        const d = event.data;
        await trx(table('rm_accounts'))
          .where({ id: d.userId })
          .update({ account_type: 'BUSINESS', company_name: d.companyName, siret: d.siret, tax_country: d.taxCountry, tax_id: d.taxId, rccm: d.rccm, revision });
        return;
      }
      case 'LedgerAccountLinked':
        await trx(table('rm_accounts')).where({ id: event.data.userId }).update({ ledger_account: event.data.ledgerAccount, revision });
        return;
      case 'RoleGranted':
        await trx(table('rm_accounts')).where({ id: event.data.userId }).update({ role: event.data.role, revision });
        return;
      default:
        return;
    }
  },
};
