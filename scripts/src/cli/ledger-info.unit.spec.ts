import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Keypair } from '@stellar/stellar-sdk';
import { createLedgerGateway, loadConfig } from '@cagnotte/infra';
import { horizonUrlOf, ledgerInfo } from './ledger-info';
import { accountIdOfSeed, seedOfSecret } from './stellar-keys';

// `ledger info` answers without the Stellar SDK: its account ids must be the very ones the SDK and the service's
// ledger gateway derive, and its Horizon URL the one the service serves.
const test = suite('cli ledger info: the ledger as the service sees it, without the Stellar SDK');

test('given any ed25519 seed, the account id is the SDK’s; a secret key gives back its seed; a bad checksum is refused', () => {
  for (let i = 0; i < 200; i++) {
    const seed = createHash('sha256').update(`seed ${i}`).digest();
    const keypair = Keypair.fromRawEd25519Seed(seed);
    assert.is(accountIdOfSeed(seed), keypair.publicKey(), `seed ${i}`);
    assert.equal(seedOfSecret(keypair.secret()), seed, `secret ${i}`);
  }
  const secret = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7)).secret();
  assert.throws(() => seedOfSecret(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`), /checksum|secret/);
  assert.throws(() => seedOfSecret(Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7)).publicKey()), /secret/);
});

test('given a sandbox passphrase, the stablecoin issuer, platform and signing accounts are the ledger gateway’s', () => {
  const config = loadConfig({ STELLAR_NETWORK_PASSPHRASE: 'Cagnotte ledger info spec' });
  const settings = createLedgerGateway(config, { url: null }).settings;
  const info = ledgerInfo(config);
  assert.equal(
    [info.mode, info.network, info.stablecoin.issuer, info.platformAccount, info.challengeSigningAccount],
    ['sandbox', 'sandbox', settings.assetIssuer, settings.platformAccount, settings.signingKeypair.publicKey()],
  );
});

test('given a real Horizon, its URL, accounts and the signing secret’s account are printed as configured', () => {
  const signing = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 3));
  const config = loadConfig({
    LEDGER_MODE: 'horizon',
    HORIZON_URL: 'https://horizon-testnet.stellar.org',
    STELLAR_NETWORK_PASSPHRASE: 'Test SDF Network ; September 2015',
    STELLAR_ASSET_ISSUER: Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey(),
    PLATFORM_ACCOUNT: Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).publicKey(),
    PLATFORM_SECRET: Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).secret(),
    LEDGER_SIGNING_SECRET: signing.secret(),
    ANCHOR_INTERVAL_SECONDS: '0',
  });
  const info = ledgerInfo(config);
  assert.equal([info.network, info.horizonUrl, info.challengeSigningAccount], ['testnet', 'https://horizon-testnet.stellar.org', signing.publicKey()]);
  assert.is(info.challengeSigningAccount, createLedgerGateway(config, { url: null }).settings.signingKeypair.publicKey());
});

test('in sandbox, the Horizon URL is /sandbox/horizon on the HOST and PORT the service listens on', () => {
  assert.is(horizonUrlOf(loadConfig({ PORT: '4567' })), 'http://localhost:4567/sandbox/horizon', 'a wildcard HOST is reached as localhost');
  assert.is(horizonUrlOf(loadConfig({ PORT: '8080', HOST: '10.1.2.3' })), 'http://10.1.2.3:8080/sandbox/horizon');
  assert.is(horizonUrlOf(loadConfig({ PORT: '8080', HOST: '::1' })), 'http://[::1]:8080/sandbox/horizon');
  assert.is(horizonUrlOf(loadConfig({})), 'http://localhost:3000/sandbox/horizon', 'PORT defaults to 3000');
  assert.is(horizonUrlOf(loadConfig({ PORT: '0' })), null, 'a port the system picks is not known in advance');
});

test.run();
