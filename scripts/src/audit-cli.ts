/**
 * The auditor's verbs of the operator CLI (`pnpm cli auditor …`, `pnpm cli pool history|state …`), mounted by cli.ts.
 * The pool verbs read the event store itself, not the audit read model: they are the ground truth an auditor checks
 * the API against, and they work when a projection is faulted (a forged event faults them: that is when they matter).
 */
import { parseArgs } from 'node:util';
import { grantAuditor, revokeAuditor, poolStream, type AuditorChange } from '@cagnotte/command-api';
import { NotFoundError } from '@cagnotte/domain';
import { ESCROW_HISTORY_TYPES, eventRegistry, parseEvent, type EventMetadata } from '@cagnotte/event-schemas';
import { formatPosition, type Position, type RecordedEvent, type Services } from '@cagnotte/infra';
import { NotYetExistingError, verifyStreamEvents } from '@cagnotte/query-api';
import { AccountReadModel, AuditReadModel, TenantReadModel, auditEventView, cutAt, escrowStateFold, parseAt, poolStateAt, type StateEvent } from '@cagnotte/read-models';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface AuditCliDeps {
  /** The CLI's bad-usage error (exit 2). */
  usage: (message: string) => Error;
  print: (value: unknown) => void;
  meta: () => Omit<EventMetadata, 'tenantId'>;
  /** Applies every pending event to the projections (up to `until` when given). */
  catchUp: (s: Services, until?: Position | null) => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const auditCommands = ({ usage, print, meta, catchUp }: AuditCliDeps): Record<string, Command> => {
  const tenantAndAccount = async (s: Services, verb: string, args: string[]) => {
    const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, email: { type: 'string' } } });
    if (!values.tenant || !values.email) throw usage(`auditor ${verb} needs --tenant and --email`);
    const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
    if (!tenant) throw usage(`no tenant ${values.tenant}`);
    const account = await new AccountReadModel(s.knex).findInTenant(tenant.id, values.email);
    if (!account) throw usage(`no user ${values.email} in ${tenant.slug}`);
    return { tenant, account };
  };
  const change = (verb: 'grant' | 'revoke', decide: typeof grantAuditor): Command => async (s, args) => {
    const { tenant, account } = await tenantAndAccount(s, verb, args);
    const result: AuditorChange = await decide(s, { slug: tenant.slug, userId: account.id }, meta());
    await catchUp(s, result.position);
    print({ tenant: tenant.slug, userId: account.id, email: account.email, auditor: result.auditor, changed: result.changed, position: result.position && formatPosition(result.position) });
  };

  const poolArg = (verb: string, positionals: string[]): string => {
    const id = positionals[0];
    if (!id || !UUID.test(id)) throw usage(`pool ${verb} needs a pool id`);
    return id;
  };
  const readPool = async (s: Services, poolId: string): Promise<RecordedEvent[]> => {
    const events = await s.store.readStream(poolStream(poolId));
    if (events.length === 0) throw new NotFoundError('pool');
    return events;
  };

  return {
    'auditor grant': change('grant', grantAuditor),
    'auditor revoke': change('revoke', revokeAuditor),
    'auditor list': async (s, args) => {
      const { values } = parseArgs({ args, options: { tenant: { type: 'string' } } });
      if (!values.tenant) throw usage('auditor list needs --tenant');
      const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
      if (!tenant) throw usage(`no tenant ${values.tenant}`);
      await catchUp(s);
      print({ tenant: tenant.slug, auditors: await new AuditReadModel(s.knex).auditors(tenant.id) });
    },
    'pool history': async (s, args) => {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { reservation: { type: 'string' }, escrow: { type: 'boolean', default: false }, limit: { type: 'string' } } });
      const poolId = poolArg('history', positionals);
      if (values.reservation !== undefined && !UUID.test(values.reservation)) throw usage('--reservation takes a reservation id');
      const limit = values.limit === undefined ? Infinity : Number(values.limit);
      if (values.limit !== undefined && (!/^\d{1,6}$/.test(values.limit) || limit < 1)) throw usage('--limit takes 1 to 999999');
      // The whole stream is checked, whatever the filter shows: every link, from revision 0.
      const checked = verifyStreamEvents(await readPool(s, poolId));
      const shown = checked.items.filter(
        ({ event: e }) =>
          (!values.escrow || ESCROW_HISTORY_TYPES.has(e.type)) && (values.reservation === undefined || (e.data as { reservationId?: unknown } | null)?.reservationId === values.reservation),
      );
      print({
        poolId,
        streamId: poolStream(poolId),
        events: checked.items.length,
        total: shown.length,
        chain: checked.chain,
        items: shown.slice(0, limit).map((i) => auditEventView(i.event, i.verified)),
      });
      if (!checked.chain.verified) process.exitCode = 1;
    },
    'pool state': async (s, args) => {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { at: { type: 'string' } } });
      const poolId = poolArg('state', positionals);
      const at = values.at === undefined ? null : parseAt(values.at);
      if (values.at !== undefined && !at) throw usage('--at takes a position "<commit>-<prepare>", a revision or an ISO-8601 date-time with its zone');
      // Upcast as the projection does; a type this build does not know yet is passed to the folds as stored (they skip it).
      const events: StateEvent[] = (await readPool(s, poolId)).map((e) => ({
        id: e.id,
        revision: e.revision,
        position: e.position,
        type: e.type,
        data: eventRegistry.has(e.type) ? parseEvent(e).data : e.data,
        metadata: e.metadata,
      }));
      const state = poolStateAt(cutAt(events, at), { at: at === null ? new Date() : at.kind === 'time' ? at.time : undefined, extraFolds: { escrow: escrowStateFold } });
      if (!state) throw new NotYetExistingError(`The pool did not exist yet at ${values.at}: its history starts at ${formatPosition(events[0]!.position)} (revision 0, ${events[0]!.metadata.occurredAt})`);
      print(state);
    },
  };
};
