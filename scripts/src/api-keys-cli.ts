/**
 * The API keys' verbs of the operator CLI (`pnpm cli api-keys …`, `pnpm cli tenant verify|unverify …`), mounted by
 * cli.ts. The same rules as `/v1/api-keys` (command-api/src/api-keys): a key acts as an organiser of the tenant, a
 * live key needs a verified tenant, the secret is printed once.
 */
import { parseArgs } from 'node:util';
import { issueApiKey, normaliseScopes, requireKeyOwner, toApiKeyView, verifyTenant, withdrawTenantVerification } from '@cagnotte/command-api';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { ApiKeyStore, V1Scope, formatPosition, fromPrefixedId, type Position, type Services } from '@cagnotte/infra';
import { AccountReadModel, TenantReadModel } from '@cagnotte/read-models';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface ApiKeyCliDeps {
  usage: (message: string) => Error;
  print: (value: unknown) => void;
  meta: () => Omit<EventMetadata, 'tenantId'>;
  catchUp: (s: Services, until?: Position | null) => Promise<void>;
}

export const apiKeyCommands = ({ usage, print, meta, catchUp }: ApiKeyCliDeps): Record<string, Command> => {
  const tenantOf = async (s: Services, slug: string | undefined, verb: string) => {
    if (!slug) throw usage(`${verb} needs a tenant slug`);
    const tenant = await new TenantReadModel(s.knex).bySlug(slug.toLowerCase());
    if (!tenant) throw usage(`no tenant ${slug}`);
    return tenant;
  };
  const keyOf = async (s: Services, id: string | undefined, verb: string) => {
    const uuid = id ? fromPrefixedId('key', id) : null;
    if (!uuid) throw usage(`api-keys ${verb} needs a key id (key_…)`);
    const key = await new ApiKeyStore(s.knex).findAnywhere(uuid);
    if (!key) throw usage(`no key ${id}`);
    return key;
  };
  const verification = (change: typeof verifyTenant): Command => async (s, args) => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { note: { type: 'string' } } });
    const tenant = await tenantOf(s, positionals[0], 'tenant verify');
    const result = await change(s, { slug: tenant.slug, note: values.note ?? null }, meta());
    await catchUp(s, result.position);
    print({ tenant: tenant.slug, verified: result.verifiedAt !== null, verifiedAt: result.verifiedAt, changed: result.changed, position: result.position && formatPosition(result.position) });
  };

  return {
    'tenant verify': verification(verifyTenant),
    'tenant unverify': verification(withdrawTenantVerification),
    'api-keys create': async (s, args) => {
      const { values } = parseArgs({
        args,
        options: { tenant: { type: 'string' }, email: { type: 'string' }, mode: { type: 'string', default: 'test' }, name: { type: 'string' }, scopes: { type: 'string' } },
      });
      const tenant = await tenantOf(s, values.tenant, 'api-keys create --tenant');
      if (!values.email) throw usage('api-keys create needs --email (the organiser the key acts as)');
      if (values.mode !== 'test' && values.mode !== 'live') throw usage('--mode is test or live');
      const scopes = values.scopes ? values.scopes.split(',').map((x) => x.trim()) : undefined;
      for (const scope of scopes ?? []) if (!V1Scope.safeParse(scope).success) throw usage(`unknown scope ${scope}`);
      const account = await new AccountReadModel(s.knex).findInTenant(tenant.id, values.email);
      if (!account) throw usage(`no user ${values.email} in ${tenant.slug}`);
      const issued = await issueApiKey(
        { store: s.store, keys: new ApiKeyStore(s.knex) },
        { tenant, ownerId: account.id, livemode: values.mode === 'live', name: values.name ?? 'operator CLI', scopes: normaliseScopes(scopes), createdBy: `operator:${meta().actor.id}` },
      );
      print({ ...toApiKeyView(issued.key), secret: issued.secret });
    },
    'api-keys list': async (s, args) => {
      const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, email: { type: 'string' }, limit: { type: 'string', default: '100' } } });
      const tenant = await tenantOf(s, values.tenant, 'api-keys list --tenant');
      const limit = Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw usage('--limit is 1 to 100');
      let ownerId: string | undefined;
      if (values.email) {
        const account = await new AccountReadModel(s.knex).findInTenant(tenant.id, values.email);
        if (!account) throw usage(`no user ${values.email} in ${tenant.slug}`);
        ownerId = account.id;
      }
      const page = await new ApiKeyStore(s.knex).list({ tenantId: tenant.id, ownerId, limit });
      print({ tenant: tenant.slug, items: page.items.map(toApiKeyView), hasMore: page.hasMore });
    },
    'api-keys roll': async (s, args) => {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'grace-hours': { type: 'string', default: '0' } } });
      const key = await keyOf(s, positionals[0], 'roll');
      const hours = Number(values['grace-hours']);
      if (!Number.isInteger(hours) || hours < 0 || hours > 168) throw usage('--grace-hours is 0 to 168');
      await requireKeyOwner(s.store, key.tenantId, key.ownerId);
      const now = new Date();
      const rolled = await new ApiKeyStore(s.knex).roll(key.id, { now, graceUntil: hours > 0 ? new Date(now.getTime() + hours * 3_600_000) : null, createdBy: `operator:${meta().actor.id}` });
      if (!rolled) throw usage(`key ${positionals[0]} is revoked, expired or already rolled`);
      print({ ...toApiKeyView(rolled.key), secret: rolled.secret });
    },
    'api-keys revoke': async (s, args) => {
      const { positionals } = parseArgs({ args, allowPositionals: true });
      const key = await keyOf(s, positionals[0], 'revoke');
      const revoked = await new ApiKeyStore(s.knex).revoke(key.id, new Date());
      print(toApiKeyView(revoked ?? key));
    },
  };
};
