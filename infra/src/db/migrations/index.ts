import type { Knex } from 'knex';
import * as m001 from './001-event-store';
import * as m002 from './002-projections-and-identity';
import * as m003 from './003-merchants';
import * as m004 from './004-catalogue-search';
import * as m005 from './005-trigram-costs';
import * as m006 from './006-search-vocabulary';
import * as m007 from './007-ledger-sandbox';
import * as m008 from './008-auth-personas-mail';
import * as m009 from './009-search-per-kind-indexes';
import * as m010 from './010-event-anchors';
import * as m011 from './011-idempotency-keys';
import * as m012 from './012-projection-faults';
import * as m013 from './013-feed-horizon';
import * as m014 from './014-mandates-grants';
import * as m015 from './015-sandbox-claimable-balances';
import * as m016 from './016-mail-handover';
import * as m017 from './017-reservations';
import * as m018 from './018-search-source-holders';
import * as m019 from './019-audit';
import * as m020 from './020-escrow-reads';
import * as m021 from './021-escrow-timers';
import * as m022 from './022-invoices';
import * as m023 from './023-reservation-deposit-fee';
import * as m024 from './024-invoice-pool-optional';
import * as m025 from './025-events-out';
import * as m026 from './026-webhook-delivery-runs';
import * as m027 from './027-append-batch';
import * as m028 from './028-api-keys';
import * as m029 from './029-v1-accounts-transfers';
import * as m030 from './030-payment-requests';
import * as m031 from './031-group-buys';
import * as m032 from './032-deals';
import * as m033 from './033-webhook-endpoint-mode';
import * as m034 from './034-relais-sandbox-points';
import * as m037 from './037-relais-shipments';
import * as m035 from './035-relais-hosts';
import * as m036 from './036-relais-pool-points';
import * as m038 from './038-relais-carrier-events';

interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Migration[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011, m012, m013, m014, m015, m016, m017, m018, m019, m020, m021, m022, m023, m024, m025, m026, m027, m028, m029, m030, m031, m032, m033, m034, m035, m036, m037, m038];

/** Migrations are imported, not globbed from disk, so they run the same under tsx, a bundle or a test. */
export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => migrations,
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};
