import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Account, BASE_FEE, Keypair, Networks, Operation, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { stellar } from '../src';

/** stellar.signXdr: the envelope the API hands out comes back signed by the given key, for the given network only. */
const test = suite('sdk: stellar.signXdr');

const unsigned = (source: Keypair, passphrase: string) =>
  new TransactionBuilder(new Account(source.publicKey(), '41'), { fee: BASE_FEE, networkPassphrase: passphrase })
    .addOperation(Operation.manageData({ name: 'challenge', value: 'abc' }))
    .setTimeout(60)
    .build()
    .toXDR();

/** What the key's own signature of the envelope is (ed25519 is deterministic: the same bytes every time). */
const signedBy = (xdr: string, key: Keypair, passphrase: string) => {
  const tx = new Transaction(xdr, passphrase);
  tx.sign(key);
  return tx.toXDR();
};

test('given an unsigned envelope, then the answer is it signed once by that key, for that network', () => {
  const wallet = Keypair.random();
  const xdr = unsigned(wallet, Networks.TESTNET);
  const signed = stellar.signXdr(xdr, wallet.secret(), Networks.TESTNET);
  assert.is.not(signed, xdr);
  assert.is(new Transaction(signed, Networks.TESTNET).signatures.length, 1);
  assert.is(signed, signedBy(xdr, wallet, Networks.TESTNET));
});

test('given another network passphrase or another key, then it is not the signature the network expects', () => {
  const wallet = Keypair.random();
  const xdr = unsigned(wallet, Networks.TESTNET);
  const expected = signedBy(xdr, wallet, Networks.TESTNET);
  assert.is.not(stellar.signXdr(xdr, wallet.secret(), Networks.PUBLIC), expected);
  assert.is.not(stellar.signXdr(xdr, Keypair.random().secret(), Networks.TESTNET), expected);
});

test.run();
