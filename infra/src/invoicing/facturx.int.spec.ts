import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFString, decodePDFRawStream } from 'pdf-lib';
import type { InvoiceDocument } from '@cagnotte/domain';
import { renderCii } from './cii';
import { FACTURX_FILENAME, renderFacturX } from './facturx';
import { ALL_CASES, creditNote, goodsTierDiscount, goodsTwoRates } from './fixtures.testing';
import { describeValidation, validateCii } from './validate.testing';

/** pdf.js, an independent reader (Mozilla's), for the attachment and the text a person sees. */
const pdfjs = () => import('pdfjs-dist/legacy/build/pdf.mjs');

const readWithPdfJs = async (bytes: Uint8Array) => {
  const { getDocument } = await pdfjs();
  const task = getDocument({ data: bytes.slice(), useSystemFonts: false, verbosity: 0 });
  const pdf = await task.promise;
  const attachments = (await pdf.getAttachments()) as Record<string, { filename: string; content: Uint8Array }> | null;
  let text = '';
  for (let i = 1; i <= pdf.numPages; i++) {
    const content = await (await pdf.getPage(i)).getTextContent();
    text += content.items.map((it) => ('str' in it ? it.str : '')).join(' ') + '\n';
  }
  const pages = pdf.numPages;
  await task.destroy();
  return { attachments, text, pages };
};

const rawStream = (value: unknown): PDFRawStream => {
  assert.instance(value, PDFRawStream);
  return value as PDFRawStream;
};

/** The catalog, its /AF array, the file specification of factur-x.xml and its bytes, through pdf-lib's object model. */
const readWithPdfLib = async (bytes: Uint8Array) => {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const { catalog, context } = pdf;
  const names = catalog.lookup(PDFName.of('Names'), PDFDict).lookup(PDFName.of('EmbeddedFiles'), PDFDict).lookup(PDFName.of('Names'), PDFArray);
  const specRef = names.get(1) as PDFRef;
  const spec = context.lookup(specRef, PDFDict);
  const stream = rawStream(spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')));
  const af = catalog.lookup(PDFName.of('AF'), PDFArray);
  const metadata = rawStream(catalog.lookup(PDFName.of('Metadata')));
  const intents = catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
  return {
    names: (names.get(0) as PDFHexString | PDFString).decodeText(),
    spec,
    afHoldsSpec: af.asArray().some((r) => r.toString() === specRef.toString()),
    xml: new TextDecoder().decode(decodePDFRawStream(stream).decode()),
    subtype: stream.dict.get(PDFName.of('Subtype'))?.toString(),
    xmp: new TextDecoder().decode(metadata.contents),
    intent: intents.lookup(0, PDFDict),
    info: { title: pdf.getTitle(), producer: pdf.getProducer(), created: pdf.getCreationDate()?.toISOString() },
  };
};

const facturx = suite('invoicing: renderFacturX, a PDF/A-3 with its factur-x.xml');

facturx('given an invoice, when rendered, then pdf.js finds factur-x.xml, equal to renderCii, and it validates', async () => {
  const doc = goodsTwoRates();
  const bytes = await renderFacturX(doc);
  const { attachments, text } = await readWithPdfJs(bytes);
  assert.ok(attachments && attachments[FACTURX_FILENAME], `attachments: ${Object.keys(attachments ?? {}).join(', ')}`);
  const xml = new TextDecoder().decode(attachments![FACTURX_FILENAME]!.content);
  assert.is(xml, renderCii(doc));
  const v = await validateCii(xml);
  assert.ok(v.xsdValid && v.fatal.length === 0, describeValidation(v));
  // The page a person reads says the same as the XML.
  for (const fact of [doc.number, doc.seller.name, doc.buyer.name, doc.totals.grandTotal, doc.totals.taxTotal, doc.paymentReference!.slice(0, 20), 'Panier de légumes']) {
    assert.ok(text.includes(fact), `the page shows ${fact}`);
  }
});

facturx('given an invoice, when rendered, then the file spec is an associated file (/AF, /Alternative) of type text/xml', async () => {
  const r = await readWithPdfLib(await renderFacturX(goodsTwoRates()));
  assert.is(r.names, 'factur-x.xml');
  assert.ok(r.afHoldsSpec, 'the catalog /AF array lists the file specification');
  assert.is(r.spec.get(PDFName.of('AFRelationship'))?.toString(), '/Alternative');
  assert.is(r.spec.get(PDFName.of('Type'))?.toString(), '/Filespec');
  assert.ok(r.spec.has(PDFName.of('F')) && r.spec.has(PDFName.of('UF')), 'F and UF name the file');
  assert.is(r.subtype, '/text#2Fxml');
  assert.is(r.xml, renderCii(goodsTwoRates()));
});

facturx('given an invoice, when rendered, then the XMP declares PDF/A-3B and the Factur-X fields, and an sRGB OutputIntent is there', async () => {
  const doc = goodsTwoRates();
  const r = await readWithPdfLib(await renderFacturX(doc));
  for (const fragment of [
    '<pdfaid:part>3</pdfaid:part>',
    '<pdfaid:conformance>B</pdfaid:conformance>',
    '<fx:DocumentType>INVOICE</fx:DocumentType>',
    '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>',
    '<fx:Version>1.0</fx:Version>',
    '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>',
    '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>',
    '<pdfaSchema:prefix>fx</pdfaSchema:prefix>',
    '<pdfaProperty:name>ConformanceLevel</pdfaProperty:name>',
    `<xmp:CreateDate>${doc.issueDate}T00:00:00Z</xmp:CreateDate>`,
  ]) {
    assert.ok(r.xmp.includes(fragment), fragment);
  }
  assert.ok(r.xmp.includes(`Invoice ${doc.number}`));
  assert.is(r.info.title, `Invoice ${doc.number}`, 'the Info dictionary agrees with the XMP');
  assert.is(r.info.producer, 'Cagnotte (pdf-lib)');
  assert.is(r.info.created, `${doc.issueDate}T00:00:00.000Z`);
  assert.is(r.intent.get(PDFName.of('S'))?.toString(), '/GTS_PDFA1');
  assert.ok(r.intent.has(PDFName.of('DestOutputProfile')));
});

facturx('the same document renders to the same bytes; another document to other bytes', async () => {
  const a = await renderFacturX(goodsTwoRates());
  const b = await renderFacturX(goodsTwoRates());
  assert.is(Buffer.compare(Buffer.from(a), Buffer.from(b)), 0);
  const c = await renderFacturX(goodsTierDiscount());
  assert.is.not(Buffer.compare(Buffer.from(a), Buffer.from(c)), 0);
});

facturx('a credit note says so and names the invoice it corrects', async () => {
  const doc = creditNote();
  const { text } = await readWithPdfJs(await renderFacturX(doc));
  assert.ok(text.includes('CREDIT NOTE'));
  assert.ok(text.includes(doc.precedingInvoice!.number));
});

facturx('a long invoice flows onto more pages and its XML still validates', async () => {
  const base = goodsTwoRates();
  const lines = Array.from({ length: 70 }, (_, i) => ({ ...base.lines[i % 2]!, id: String(i + 1), name: `Article ${i + 1} with a rather long description that wraps onto a second line of the table` }));
  const { computeInvoice } = await import('@cagnotte/domain');
  const doc: InvoiceDocument = computeInvoice({ ...base, lines, prepaid: '0' });
  const bytes = await renderFacturX(doc);
  const { attachments, pages, text } = await readWithPdfJs(bytes);
  assert.ok(pages >= 2, `${pages} pages`);
  assert.ok(text.includes('Article 70'));
  const v = await validateCii(new TextDecoder().decode(attachments![FACTURX_FILENAME]!.content));
  assert.ok(v.xsdValid && v.fatal.length === 0, describeValidation(v));
});

for (const [name, build] of Object.entries(ALL_CASES)) {
  facturx(`given ${name}, the embedded XML reads back equal to renderCii`, async () => {
    const doc = build();
    const r = await readWithPdfLib(await renderFacturX(doc));
    assert.is(r.xml, renderCii(doc));
  });
}

facturx.run();
