import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EINVOICING_DIR, describeValidation, validateCii } from './validate.testing';

const examples = join(EINVOICING_DIR, 'examples');
const read = (name: string) => readFileSync(join(examples, name), 'utf8');

const validator = suite('invoicing: the EN 16931 validator (XSD + CEN Schematron), vendored');

for (const name of readdirSync(examples).filter((f) => f.endsWith('.xml'))) {
  validator(`given the official example ${name}, when validated, then it passes the XSD with 0 fatal rules`, async () => {
    const v = await validateCii(read(name));
    assert.ok(v.xsdValid, describeValidation(v));
    assert.equal(v.fatal.map((f) => f.id), [], describeValidation(v));
  });
}

validator('given an example whose grand total no longer adds up, when validated, then the Schematron fails BR-CO-15', async () => {
  const xml = read('CII_example1.xml');
  const broken = xml.replace(/<ram:GrandTotalAmount>([^<]+)<\/ram:GrandTotalAmount>/, '<ram:GrandTotalAmount>999999.99</ram:GrandTotalAmount>');
  assert.is.not(broken, xml);
  const v = await validateCii(broken);
  assert.ok(v.xsdValid, describeValidation(v));
  assert.ok(v.fatal.some((f) => f.id === 'BR-CO-15'), `BR-CO-15 among ${v.fatal.map((f) => f.id).join(', ')}`);
  const rule = v.fatal.find((f) => f.id === 'BR-CO-15')!;
  assert.ok(rule.text.length > 0 && rule.location.length > 0, 'a failed rule carries its text and location');
});

validator('given an element out of the schema order, when validated, then the XSD rejects it', async () => {
  const xml = read('CII_example1.xml');
  // The document context must come first in the root; moving the header after it breaks the sequence.
  const broken = xml.replace(/(<rsm:ExchangedDocumentContext>[\s\S]*?<\/rsm:ExchangedDocumentContext>)(\s*)(<rsm:ExchangedDocument>[\s\S]*?<\/rsm:ExchangedDocument>)/, '$3$2$1');
  assert.is.not(broken, xml);
  const v = await validateCii(broken);
  assert.not.ok(v.xsdValid);
  assert.ok(v.xsdErrors.length > 0);
});

validator.run();
