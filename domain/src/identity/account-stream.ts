import type { DomainEvent } from '@cagnotte/event-schemas';
import { evolveAccount, initialAccount, isAccountEvent, type Account, type AccountEvent } from './account';
import { evolveOrganiserGrants, initialOrganiserGrants, isOrganiserGrantEvent, type OrganiserGrantEvent, type OrganiserGrants } from '../personas/organiser-grant';
import { evolveMandates, initialMandates, isMandateEvent, type MandateEvent, type Mandates } from '../mandates/mandate';
import { evolveTenant, initialTenant, type Tenant, type TenantEvent } from './tenant';

/*
 * Streams and the aggregates folded from them. Stream names and events are published: old streams must still
 * fold, so aggregates that grew up in one stream stay there, each folding only its own union (a type guard skips
 * the stream's other events).
 *
 * | stream             | aggregate (domain)                         | events it folds                                                              |
 * |--------------------|--------------------------------------------|------------------------------------------------------------------------------|
 * | tenant-<slug>      | Tenant (identity/tenant.ts)                | TenantCreated, TenantSettingsChanged, TenantAuditorGranted, TenantAuditorRevoked, TenantFeeScheduleSet |
 * | account-<userId>   | Account (identity/account.ts)              | AccountRegistered, BusinessIdentityCaptured, LedgerAccountLinked, RoleGranted, PasswordResetCompleted, AccountCreatedByPartner, AccountProfileUpdated |
 * | account-<userId>   | OrganiserGrants (personas/organiser-grant) | AccountRegistered, BusinessIdentityCaptured, LedgerAccountLinked, OrganiserGrantPrepared, OrganiserGrantSettled, RoleGranted |
 * | account-<userId>   | Mandates (mandates/mandate.ts)             | AccountRegistered, MandateAccepted, MandateRevoked                           |
 * | pool-<poolId>      | Pool (pools/pool.ts)                       | the Pool… events, PoolCommissionMandateAccepted                              |
 * | merchant-<tenantId>-<slug> | Merchant (merchants/merchant.ts)  | the Merchant… events                                                         |
 * | transfer-<transferId> | Transfer (transfers/transfer.ts)        | the Transfer… events                                                         |
 */

/** Every event an account stream holds. */
export type AccountStreamEvent = AccountEvent | OrganiserGrantEvent | MandateEvent;

/** An aggregate's fold over a shared stream: its own evolve, behind its type guard. */
const onStream =
  <S, E extends DomainEvent>(is: (e: DomainEvent) => e is E, evolve: (s: S, e: E) => S) =>
  (state: S, event: DomainEvent): S =>
    is(event) ? evolve(state, event) : state;

/** The shapes runCommand folds with (command-api/src/shared/run-command.ts `Aggregate`). */
export const tenantAggregate = { initial: initialTenant, evolve: (s: Tenant, e: TenantEvent): Tenant => evolveTenant(s, e) };
export const accountAggregate = { initial: initialAccount, evolve: onStream<Account, AccountEvent>(isAccountEvent, evolveAccount) };
export const organiserGrantAggregate = { initial: initialOrganiserGrants, evolve: onStream<OrganiserGrants, OrganiserGrantEvent>(isOrganiserGrantEvent, evolveOrganiserGrants) };
export const mandateAggregate = { initial: initialMandates, evolve: onStream<Mandates, MandateEvent>(isMandateEvent, evolveMandates) };

/**
 * Account and mandates side by side, for the commands that record both in one append (a signup or a
 * become-seller that carries the FEE acceptance): each part still decides alone, on its own state.
 */
export interface AccountWithMandates {
  account: Account;
  mandates: Mandates;
}
export const accountWithMandatesAggregate = {
  initial: (): AccountWithMandates => ({ account: initialAccount(), mandates: initialMandates() }),
  evolve: (s: AccountWithMandates, e: DomainEvent): AccountWithMandates => ({ account: accountAggregate.evolve(s.account, e), mandates: mandateAggregate.evolve(s.mandates, e) }),
};
