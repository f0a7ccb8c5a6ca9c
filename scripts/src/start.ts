import { randomUUID } from 'node:crypto';
import { createTenant, escrowJobDeps, invoicingJobDeps, startEscrowJobs, startInvoicingJobs, startListingRefunds, startRelaisJobs, startRequestJobs, startReservationExpiry, startWebhooks } from '@cagnotte/command-api';
import { ConflictError } from '@cagnotte/domain';
import { EscrowLedger, boot, formatAddress, startAnchoring, startMailDelivery, type Config, type Position, type Services } from '@cagnotte/infra';
import { PROJECT_ROOT, embeddedPostgresPlace, startEmbeddedPostgres } from './embedded-postgres';
import { createEmbedded } from './api';
import { TenantReadModel } from '@cagnotte/read-models';

/**
 * In sandbox, requests that name no tenant use DEFAULT_TENANT: it is created on first start (white-label on, no
 * approved origins), so a fresh sandbox answers signups and catalogue reads at once. Production never invents one.
 */
const provisionDefaultTenant = async (services: Services, catchUp: (position: Position) => Promise<unknown>) => {
  const slug = services.config.DEFAULT_TENANT;
  if (services.config.APP_ENV !== 'sandbox' || (await new TenantReadModel(services.knex).bySlug(slug))) return;
  try {
    const meta = { actor: { kind: 'system' as const, id: 'sandbox-start' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
    const { position } = await createTenant(services, { slug, name: 'Sandbox default tenant', whiteLabel: true, approvedOrigins: [] }, meta);
    await catchUp(position);
    services.logger.info({ tenant: slug }, 'sandbox: created the default tenant');
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e; // another process created it first
  }
};

/**
 * With DATABASE_URL unset and nothing answering on the default address, a sandbox start runs an embedded PostgreSQL
 * (data in EMBEDDED_POSTGRES_DIR) and says so in one line; it is stopped after every connection closed. Production
 * never does: there, a missing PostgreSQL is one line naming DATABASE_URL.
 */
const embeddedPostgresIfNone = async (config: Config): Promise<{ config: Config; stop?: () => Promise<void> }> => {
  const place = await embeddedPostgresPlace(config);
  if (!place) return { config };
  const { address, dataDir } = place;
  const embedded = await startEmbeddedPostgres(dataDir);
  const shown = dataDir.startsWith(`${PROJECT_ROOT}/`) ? dataDir.slice(PROJECT_ROOT.length + 1) : dataDir;
  process.stderr.write(
    `no PostgreSQL on ${formatAddress(address)}: started an embedded one (${embedded.initialised ? 'new ' : ''}data in ${shown}, port ${embedded.port}); set DATABASE_URL to use your own\n`,
  );
  return { config: { ...config, DATABASE_URL: embedded.url }, stop: () => embedded.stop() };
};

/** `pnpm start`: migrate, then serve the whole API on PORT with the projectors in this process. */
void boot('cagnotte', async (services) => {
  const { app, runner } = await createEmbedded(services, { projectors: services.config.PROJECTORS === 'embedded' });
  await provisionDefaultTenant(services, (position) => runner.catchUp(position));
  const stopMail = startMailDelivery(services);
  const stopAnchoring = startAnchoring(services);
  const stopExpiry = startReservationExpiry(services);
  const stopRefunds = startListingRefunds(services, new EscrowLedger(services.ledger));
  const stopEscrowJobs = startEscrowJobs(escrowJobDeps(services));
  const stopInvoicing = startInvoicingJobs(invoicingJobDeps(services));
  const stopRequests = startRequestJobs(services);
  const stopRelais = startRelaisJobs(services);
  const stopWebhooks = startWebhooks(services);
  return {
    app,
    stop: async () => {
      await stopExpiry();
      await stopRefunds();
      await stopEscrowJobs();
      await stopInvoicing();
      await stopRequests();
      await stopRelais();
      await stopWebhooks();
      await stopAnchoring();
      await stopMail();
      await runner.stop();
    },
  };
}, { prepare: embeddedPostgresIfNone });
