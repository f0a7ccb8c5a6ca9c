// The operator CLI's usage text: read by the entry point (./main.ts) without loading any command.

export const AUDIT_USAGE = `  auditor grant --tenant <slug> --email <e>   make an account of the tenant one of its auditors (reads every pool's history)
  auditor revoke --tenant <slug> --email <e>
  auditor list --tenant <slug>               the tenant's auditors
  pool history <poolId> [--reservation <id>] [--escrow] [--limit <n>]
                                     the pool stream's events as stored, oldest first, each with \`verified\`, and the
                                     whole stream's chain (exit 1 when a link is broken); from the event store
  pool state <poolId> [--at <commit-prepare|revision|ISO time>]
                                     the pool and its reservations as of that point (now without --at)`;

export const API_KEYS_USAGE = `  tenant verify <slug> [--note <text>]      mark the tenant a verified business: live API keys may be issued
  tenant unverify <slug> [--note <text>]    no new live key (issued ones stay until revoked)
  api-keys create --tenant <slug> --email <organiser> [--mode test|live] [--name <n>] [--scopes <s,…>]
                                     issue a key acting as that organiser; prints the secret once
                                     (scopes: *, *:read, <resource>:read|write; default *)
  api-keys list --tenant <slug> [--email <organiser>] [--limit <n>]   keys not revoked, newest first
  api-keys roll <key_…> [--grace-hours <h>]   a new secret (printed once); the old one works <h> more hours (default 0)
  api-keys revoke <key_…>            refused from the next request on`;

export const RELAIS_HOSTS_USAGE = `  relais hosts list [--tenant <slug>] [--status pending|active|temporarily_closed|retired|rejected]
                                     the community hosts (every tenant's unless --tenant), as JSON lines
  relais hosts approve <hostId>      approve a pending application (as the operator): the host becomes a pick-up point
  relais hosts reject <hostId> [--reason <text>]   reject a pending application`;

export const DIRECTORY_USAGE = `  tenant list [--limit <n>] [--after <cursor>]
                                     the tenants, oldest first, one page as JSON: { items, nextCursor }
  user list --tenant <slug> [--limit <n>] [--after <cursor>]
                                     the tenant's accounts, oldest first, one page as JSON: { items, nextCursor }
  pool list [--tenant <slug>] [--status <s>] [--limit <n>] [--after <cursor>]
                                     the pools (every tenant's unless --tenant), oldest first, one page as JSON:
                                     { items, nextCursor }; --limit 1 to 1000 (default 100), --after the nextCursor
                                     of the previous page (null on the last page)`;

export const SANDBOX_USAGE = `  sandbox wallet create [--fund <amount>]
                                     a new Stellar wallet on the sandbox network: keys, friendbot (10,000 XLM), a
                                     trustline to the stablecoin and <amount> of it (default 1000; 0 for none); prints
                                     its public key and, once, its secret
  sandbox wallet link --tenant <slug> --email <e> [--secret <S…>]
                                     link the wallet to the user's account as a front end does: the service's
                                     challenge, signed with the wallet's key, sent back (the secret: --secret or
                                     WALLET_SECRET)
  sandbox wallet sign <xdr>... [--secret <S…>] [--submit]
                                     sign transactions the service handed out (a deposit, a settlement's lock and
                                     release, a reclaim) with the wallet's key; prints each signed envelope and hash;
                                     --submit sends them to the sandbox Horizon in order (exit 1 on the first refused)
  sandbox wallet show <publicKey>    the account's balances on the sandbox network
  sandbox clock advance <duration>   move the sandbox clock forward (ledger, commands, timers: one clock) by 90s,
                                     15m, 2h, 7d, 1d12h or ISO 8601 P7D, PT2H (at most 3650d); timers now due run at
                                     once. Prints { network, advancedBySeconds, offsetSeconds, now, promotedJobs }
  sandbox clock show                 the sandbox clock: { network, offsetSeconds, now } (sandbox only, never production)`;

export const EXIT_CODES = `Exit codes: 0 done; 1 refused or a check failed (a refused write, a broken hash chain, a pool that does not
reconcile, a faulted projection: the reason is on stderr or in the JSON); 2 bad usage (unknown command, missing or
bad argument, invalid configuration); 3 could not run (a dependency unreachable or an unexpected error, on stderr);
130 interrupted (Ctrl-C).
Long commands (projections rebuild and catch-up, escrow reconcile, events verify and anchor) report progress on
stderr: a bar on a terminal, else a line at most every second with done/total, rate and ETA.`;

export const USAGE = `Usage: pnpm cli <command> [--help]
       pnpm cli help <command>      one command's usage

  tenant create <slug> [--name <name>] [--white-label on|off] [--origin <url>]...
  tenant settings <slug> [--reservation-ttl <seconds>] [--listing-fee-listed <amount>] [--listing-fee-featured <amount>]
              [--delist-refund-window-hours <n>] [--platform-fee-percent <p>] [--inspection-days <d>]
              [--dispute-response-days <d>]   set what is given (prints the tenant's settings; unset = defaults)
  tenant fees <slug> [--payment-percent <p>] [--payment-fixed <a>] [--payment-min <a>] [--payment-cap <a>|none]
              [--deposit-percent <p>] [--deposit-fixed <a>] [--deposit-min <a>] [--deposit-cap <a>|none]
              [--listing-listed <a>] [--listing-featured <a>] [--activation <a>] [--vat-default <p>]
              [--vat <CC>=<p>]... [--vat <CC>=none]...   prints the fee schedule in force as JSON; flags set parts
              of it (recorded only when something changes; docs/fees.md)
  user create --tenant <slug> --email <e> --password <p> [--phone <p>] [--name <display name>]
              [--role user|organiser] [--account-type CONSUMER|BUSINESS]
  user block --tenant <slug> --email <e>     refuse logins (403) and revoke every session
  user unblock --tenant <slug> --email <e>
  mail list [--to <email>] [--limit <n>]    the mail outbox, newest first (sandbox only: it holds reset links)
  mail show <id>                            one message with its text
  ledger info                               network, Horizon URL, stablecoin, platform and signing accounts
  merchant create --tenant <slug> --slug <s> --name <n> [--owner-email <e>] [--lat <x> --lng <y>]
              [--postal-code <c>] [--city <c>] [--category <c>]... [--description <d>] [--website <url>] [--inactive]
  projections status                 checkpoint, head, lag and state (running|faulted, event, error) of every projection
  projections catch-up               apply every pending event now (exit 1 if a projection is faulted)
  projections retry <name>           clear a fault: the projection resumes from its checkpoint
  projections rebuild <name>         rebuild from position 0 into fresh tables and swap them in (clears a fault)
  events verify <streamId>...        recompute hash chains, check every anchor against the ledger and every
                                     anchored event against its anchor; name the first forged event
  events verify --all                every stream
  events anchor                      anchor every new event on the ledger now (a memo-hash transaction)
  events anchors [--limit <n>]       the anchor receipts, newest first
  events anchors --leaves <id>       one anchor's leaves in tree order (to check it without our code)
  events tail [--types <t,…>] [--from <cursor>] [--follow] [--tenant <slug>] [--limit <n>]
                                     the public event feed as JSON lines (each with its \`cursor\`: --from resumes after
                                     it), every tenant unless --tenant; --follow keeps tailing (Ctrl-C stops)
  escrow reconcile [--pool <id>]     record the stray payments the ledger shows, replay every published pool (or
                                     one) and compare with the ledger: the escrow holds exactly the PAID deposits, the
                                     platform received no more than its fee lines; lists missing, owed-back and
                                     unexpected deposits and the strays owed back (exit 1 when a pool does not
                                     reconcile; progress on stderr)
${AUDIT_USAGE}
${API_KEYS_USAGE}
${RELAIS_HOSTS_USAGE}
${DIRECTORY_USAGE}
${SANDBOX_USAGE}

Each command prints JSON on stdout.
${EXIT_CODES}`;
