import { UnauthorizedError, accountAggregate, tenantAggregate, type Account, type PoolActor, type RegisteredAccount, type Tenant } from '@cagnotte/domain';
import { parseEvent, type DomainEvent } from '@cagnotte/event-schemas';
import type { AuthContext, Config, EventStore } from '@cagnotte/infra';
import { tenantPolicyOf, type TenantPolicy } from '../identity/tenant';
import { accountStream, tenantStream } from './context';
import type { Aggregate } from './run-command';

/** The caller of a command: who they are as their own account stream says (never the token's claims), and that account. */
export interface Persona {
  actor: PoolActor;
  account: RegisteredAccount;
}

/**
 * Streams folded once and kept, each versioned by the revision it was folded at. Asking for one reads only its
 * tail (`fromRevision: kept + 1`, usually no rows), so what it answers is what the stream says now: a removed
 * account reads as removed at once. Folds are pure (these aggregates never change a state in place), so two
 * requests refreshing one entry at once each fold their own copy; the further one is kept.
 */
class FoldedStreams<S> {
  private readonly entries = new Map<string, { revision: bigint; state: S }>();
  constructor(
    private readonly store: EventStore,
    private readonly aggregate: Aggregate<S, DomainEvent>,
    private readonly capacity: number,
  ) {}

  async current(stream: string): Promise<S> {
    const kept = this.entries.get(stream);
    const tail = await this.store.readStream(stream, kept ? { fromRevision: kept.revision + 1n } : {});
    if (tail.length === 0) return kept ? kept.state : this.aggregate.initial();
    const state = tail.map((r) => parseEvent(r)).reduce(this.aggregate.evolve, kept ? kept.state : this.aggregate.initial());
    const revision = tail[tail.length - 1]!.revision;
    const now = this.entries.get(stream);
    if (!now || now.revision < revision) {
      this.entries.delete(stream);
      this.entries.set(stream, { revision, state });
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    return state;
  }

  forget(stream: string): void {
    this.entries.delete(stream);
  }
}

export interface FactsDeps {
  store: EventStore;
  /** Finds a tenant's slug (its stream's name) by its id: the tenants read model. A slug never changes, so it is kept. */
  tenants: { byId(id: string): Promise<{ slug: string } | null> };
  config: Config;
}

/**
 * The facts a command is decided under, loaded once per process and kept: the actor's persona (their account
 * stream) and the tenant's policy (its stream and the service's config). Both are refreshed from their stream's
 * tail on every ask, in parallel. A command on an account or tenant stream in this process drops the entry
 * (executeCommand calls `written`), so the next ask folds it again.
 */
export class CommandFacts {
  private readonly accounts: FoldedStreams<Account>;
  private readonly tenants: FoldedStreams<Tenant>;
  private readonly slugs = new Map<string, string>();

  constructor(private readonly deps: FactsDeps) {
    this.accounts = new FoldedStreams(deps.store, accountAggregate as Aggregate<Account, DomainEvent>, 20_000);
    this.tenants = new FoldedStreams(deps.store, tenantAggregate as Aggregate<Tenant, DomainEvent>, 1_000);
  }

  /** The account as its stream says now. */
  account(userId: string): Promise<Account> {
    return this.accounts.current(accountStream(userId));
  }

  /** The signed-in caller as their account says now; an account that no longer exists is a 401. */
  async persona(auth: AuthContext): Promise<Persona> {
    const account = await this.account(auth.userId);
    if (account.status === 'none') throw new UnauthorizedError('Account no longer exists', 'account_missing');
    return { actor: { userId: account.userId, role: account.role, accountType: account.accountType, displayName: account.displayName }, account };
  }

  /** The caller as the decisions name them (role and account type from their stream). */
  async actor(auth: AuthContext): Promise<PoolActor> {
    return (await this.persona(auth)).actor;
  }

  /** The tenant's policy: its settings with the service's defaults filled in (the defaults alone for an unknown tenant). */
  async policy(tenantId: string): Promise<TenantPolicy> {
    let slug = this.slugs.get(tenantId);
    if (slug === undefined) {
      slug = (await this.deps.tenants.byId(tenantId))?.slug;
      if (slug === undefined) return tenantPolicyOf({ status: 'none' }, this.deps.config);
      this.slugs.set(tenantId, slug);
      if (this.slugs.size > 10_000) this.slugs.delete(this.slugs.keys().next().value!);
    }
    return tenantPolicyOf(await this.tenants.current(tenantStream(slug)), this.deps.config);
  }

  /** The caller and their tenant's policy, both at once. */
  async of(auth: AuthContext, tenantId: string): Promise<Persona & { policy: TenantPolicy }> {
    const [persona, policy] = await Promise.all([this.persona(auth), this.policy(tenantId)]);
    return { ...persona, policy };
  }

  /** A command of this process wrote to `stream`: what was kept of it is dropped. */
  written(stream: string): void {
    this.accounts.forget(stream);
    this.tenants.forget(stream);
  }
}
