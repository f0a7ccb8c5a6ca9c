/**
 * The community hosts' verbs of the operator CLI (`pnpm cli relais hosts …`), mounted by cli.ts. The operator reviews
 * applications with the same decision as a tenant's organiser (command-api/src/relais/hosts.ts), any tenant's.
 */
import { parseArgs } from 'node:util';
import { reviewHostAsOperator } from '@cagnotte/command-api';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { formatPosition, type Position, type Services } from '@cagnotte/infra';
import { RelaisHostReader, RelaisHostStatus, TenantReadModel, relaisHostView } from '@cagnotte/read-models';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface RelaisHostCliDeps {
  usage: (message: string) => Error;
  print: (value: unknown) => void;
  meta: () => Omit<EventMetadata, 'tenantId'>;
  catchUp: (s: Services, until?: Position | null) => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const relaisHostCommands = ({ usage, print, meta, catchUp }: RelaisHostCliDeps): Record<string, Command> => {
  const list: Command = async (s, args) => {
    const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, status: { type: 'string' } } });
    const status = values.status === undefined ? undefined : RelaisHostStatus.safeParse(values.status);
    if (status && !status.success) throw usage(`--status takes ${RelaisHostStatus.options.join(', ')}`);
    let tenantId: string | undefined;
    if (values.tenant !== undefined) {
      const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
      if (!tenant) throw usage(`no tenant ${values.tenant}`);
      tenantId = tenant.id;
    }
    await catchUp(s);
    const hosts = await new RelaisHostReader(s.knex).listAll({ tenantId, status: status?.data });
    // JSON lines: one host per line.
    for (const h of hosts) console.log(JSON.stringify({ ...relaisHostView(h), rejectionReason: h.rejectionReason, statusReason: h.statusReason, approvedBy: h.approvedBy }));
  };
  const review =
    (decision: 'approve' | 'reject'): Command =>
    async (s, args) => {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: decision === 'reject' ? { reason: { type: 'string' } } : {} });
      const hostId = positionals[0];
      if (!hostId || !UUID.test(hostId)) throw usage(`relais hosts ${decision} needs a host id (see relais hosts list)`);
      const reason = (values as { reason?: string }).reason;
      if (reason !== undefined && reason.length > 500) throw usage('--reason takes at most 500 characters');
      const { host, position } = await reviewHostAsOperator(s, { hostId, decision, reason: reason ?? null }, meta());
      await catchUp(s, position);
      print({ ...host, changed: position !== null, position: position && formatPosition(position) });
    };
  const verbs: Record<string, Command> = { list, approve: review('approve'), reject: review('reject') };

  return {
    'relais hosts': async (s, args) => {
      const verb = verbs[args[0] ?? ''];
      if (!verb) throw usage('relais hosts takes list, approve or reject');
      await verb(s, args.slice(1));
    },
  };
};
