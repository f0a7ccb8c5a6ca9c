/**
 * The realistic strings of the OpenAPI examples, in one place: what a field shows when its schema says no more than
 * "a string" (openapi-examples.ts picks by format, then pattern, then description, then the field's name). A field
 * whose zod schema gives its own example (`.meta({ example })`) never gets one of these.
 */

/** The amount every money field shows: a decimal string, never a float. */
export const MONEY_EXAMPLE = '12.50';
const UUID = '3f2a9c4e-8b1d-4e6f-9a7b-2c5d8e1f0a34';
const DATE_TIME = '2026-03-14T09:30:00.000Z';
// A Stellar account id with a valid checksum (the public key of a throwaway seed).
const STELLAR_ACCOUNT = 'GB52KEV5AJF52JWQTBW4SQ23Z7SEL5PDEI7K7Z7R5VDTQ3WATNOCD3CK';
const HEX_HASH = '9b1f0c2e7d4a5b6c8e3f1a2d4c6b8e0f1a3c5e7d9b2f4a6c8e0d2b4f6a8c0e1d';
// A transaction envelope as the ledger encodes it (base64 XDR); a shape, not a transaction to submit.
const XDR = 'AAAAAgAAAADg3G3hclysZlFitS+s5zWyiiJD5B0STWy5LXCj6i5yxQAAAGQADeN3AAAAAQAAAAEAAAAAAAAAAAAAAABoJbRwAAAAAAAAAAE=';
const URL = 'https://shop.example.com/webhooks/cagnotte';

/** Strings tried first against a `pattern`, in order: the first that matches is the example. */
export const REALISTIC: string[] = [MONEY_EXAMPLE, '2026-03-14', 'FR', 'fr', '69002', 'EUR', STELLAR_ACCOUNT, 'order-2026-0001'];

export const FORMATS: Record<string, string> = {
  email: 'jane.doe@example.com',
  uuid: UUID,
  'date-time': DATE_TIME,
  date: '2026-03-14',
  time: '09:30:00',
  uri: URL,
  url: URL,
  hostname: 'shop.example.com',
  ipv4: '192.0.2.10',
  ipv6: '2001:db8::10',
  duration: 'P3D',
};

/** A /v1 id (`acct_…`, `gb_…`): the prefix and the 32 hex digits of a uuid, as event-schemas' toPrefixedId writes it. */
const prefixed = (prefix: string) => `${prefix}_${UUID.replace(/-/g, '')}`;

/** Strings chosen by what the schema's description says the field holds, before its name. */
export const BY_DESCRIPTION: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/`(acct|tr|req|gb|ord|deal|we|evt|key)_(…|<32 hex)/, (m) => prefixed(m[1]!)],
  [/<commit>-<prepare>/, () => '4821-4821'],
  [/stablecoin code/i, () => 'EURC'],
  [/ISO 8601 date-time/i, () => DATE_TIME],
  [/\(G…\)|Stellar (account|address|public key)|(ledger|escrow|platform) account/i, () => STELLAR_ACCOUNT],
  [/decimal string/i, () => MONEY_EXAMPLE],
  [/\bhex\b|sha-?256/i, () => HEX_HASH],
  // "`sandbox`, `testnet` or `public`", "e.g. `reservation.paid`", "Public event types (`reservation.paid`)": the first value it names.
  [/^`([^`…<]+)`|e\.g\. `([^`…<]+)`|\(`([^`…<]+)`\)/, (m) => (m[1] ?? m[2] ?? m[3])!],
];

/** Strings chosen by the property's name when the schema says no more than "a string". The first match wins. */
export const BY_NAME: Array<[RegExp, string]> = [
  [/(amount|price|total|fee|balance|commission|deposit)$/i, MONEY_EXAMPLE],
  [/^(amount\w*|pledge|refund|released|refunded|received|held|escrowed|committed|goal|available|pending|inEscrow|owedBack|duePayable|straysOwed|currentlyDue|heldDeposits|min|max|tax|fees|goods)$/, MONEY_EXAMPLE],
  // A map of amounts by payout role.
  [/^(SELLER|ORGANISER|PLATFORM|BUYER)$/, MONEY_EXAMPLE],
  [/(percent|rate)$/i, MONEY_EXAMPLE],
  [/currency$/i, 'EUR'],
  [/(time_?zone|tz)$/i, 'Europe/Paris'],
  [/(locale|language)$/i, 'fr-FR'],
  [/email$/i, 'jane.doe@example.com'],
  [/password$/i, 'correct-horse-battery-staple'],
  [/(xdrs?|transaction|toSign)$/i, XDR],
  [/(hash|Hash)$/, HEX_HASH],
  [/networkPassphrase$/, 'Test SDF Network ; September 2015'],
  [/(account|Account|issuer|Issuer|cosigner|publicKey|Signer|Wallet|destination)$|^(from|to|source)$/, STELLAR_ACCOUNT],
  [/^(groupBuy|rolledTo)$/, prefixed('gb')],
  [/^(reservation|supersedes)$/, UUID],
  [/^api$/, `/api/pools/${UUID}`],
  [/^orders$/, `/v1/group-buys/${prefixed('gb')}/orders`],
  [/^(head|position)$/, '4821-4821'],
  [/^accountType$/, 'CONSUMER'],
  [/^marketplaceVisibility$/, 'LISTED'],
  [/^capabilitie$/, 'organise'],
  [/^enabledEvent$/, 'reservation.paid'],
  [/^pendingVerification$/, 'wallet.trustline'],
  [/^type$/, 'ReservationPlaced'],
  [/^kind$/, 'user'],
  [/^(trackingNumber|tracking)$/, 'SBX-DELIVER-0001'],
  [/(number|Number)$/, 'INV-2026-000042'],
  [/Reference$/, 'PO-2026-0042'],
  [/^categor(y|ie)$/, 'S'],
  [/^(problem|error)$/, 'wallet_not_linked'],
  [/^(status|result|trigger)$/, 'delivered'],
  [/^(rule|prices)$/, 'tenant default'],
  [/^arm$/, 'lexical'],
  [/^path$/, 'RELEASE'],
  [/^scope$/, 'group_buys:read'],
  [/^revision$/, '12'],
  [/^redacted$/, 'signedXdr'],
  [/^q$/, 'olive oil'],
  [/^qr$/, 'cagnotte:collect:3f2a9c4e8b1d4e6f9a7b2c5d8e1f0a34:482913'],
  [/^(body|responseExcerpt)$/, '{"received":true}'],
  [/^nextCursor$/, 'eyJwIjoiNDgyMS00ODIxIn0'],
  [/^sellerIdentifier$/, 'jane.doe@example.com'],
  [/^signupSource$/, 'simple'],
  [/(At|Until|After|From|Since|By|^deadline|^created|^at|^since|^until|^validity)$/, DATE_TIME],
  [/(On|^date)$/, '2026-03-14'],
  [/^(first_?name|given_?name)$/i, 'Jane'],
  [/^(last_?name|family_?name|surname)$/i, 'Doe'],
  [/name$/i, 'Jane Doe'],
  [/title$/i, 'Olive oil from Crete, 5 L cans'],
  [/(description|message|reason|notes?|comment|text|details|statement)$/i, 'Twenty cans of first-press olive oil, delivered to the shop.'],
  [/label$/i, '5 L can'],
  [/(company|companyName|organi[sz]ation)$/i, 'Acme Market SAS'],
  [/role$/i, 'Purchasing manager'],
  [/taxId$/i, 'FR40303265045'],
  [/slug$|^tenant$/i, 'acme-market'],
  [/(url|uri|href|link|evidence)$/i, URL],
  [/^relai/, 'sandbox:SBX-001'],
  [/(city|locality)$/i, 'Lyon'],
  [/country$/i, 'FR'],
  [/(postal_?code|postcode|zip)$/i, '69002'],
  [/^(address|line1)$/, '12 rue de la République'],
  [/openingHours$/, 'Mon–Sat 09:00–19:00'],
  [/phone$/i, '+33612345678'],
  [/(ip|Ip)$/, '192.0.2.10'],
  [/rccm$/i, 'CI-ABJ-2024-B-12345'],
  [/siret$/i, '73282932000074'],
  [/version$/i, '2026-03-01'],
  [/^utm_/, 'spring-newsletter'],
  [/^referrer$/, 'https://www.example.org/blog/group-buying'],
  [/memo$/i, 'Order 2026-0001'],
  [/(token|code|secret)$/i, 'c2VjcmV0LXRva2VuLWV4YW1wbGU'],
  [/(^id|Id)$|^subject$/, UUID],
];
