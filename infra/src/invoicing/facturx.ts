/**
 * An invoice document as a Factur-X 1.0 PDF (EN 16931 profile): a readable PDF/A-3 page (or more) of the invoice, with
 * the CII XML of renderCii attached as `factur-x.xml` (AFRelationship /Alternative: in the EN 16931 profile the XML is
 * the complete invoice, an equivalent of what the page shows), listed in the catalog's /AF array, XMP metadata that
 * declares PDF/A-3B and the Factur-X extension schema, and an sRGB OutputIntent. Built with pdf-lib, fonts embedded
 * (DejaVu Sans, subset), every date the issue date, so one document always renders to the same bytes.
 *
 * Known limits (docs/invoicing.md#the-pdf): the PDF/A-3 conformance is declared and built for, not certified by a
 * PDF/A validator (veraPDF is not run in CI); the page is not tagged (level B, not A).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { AFRelationship, PDFDocument, PDFHexString, PDFName, PDFString, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { InvoiceDocument, InvoiceParty, VatCategory } from '@cagnotte/domain';
import { PAYMENT_MEANS_TEXT, renderCii } from './cii';

export const FACTURX_FILENAME = 'factur-x.xml';
export const FACTURX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
const PRODUCER = 'Cagnotte (pdf-lib)';
const SRGB = 'sRGB IEC61966-2.1';

let assets: { regular: Uint8Array; bold: Uint8Array; icc: Uint8Array } | undefined;

/**
 * The fonts (DejaVu Sans, a free licence: Bitstream Vera's, from the dejavu-fonts-ttf package) and the sRGB
 * IEC61966-2.1 ICC profile (shipped in the pdfkit package's data folder), read once.
 */
const loadAssets = () => {
  if (assets) return assets;
  const fonts = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const icc = readFileSync(join(dirname(require.resolve('pdfkit')), 'data', 'sRGB_IEC61966_2_1.icc'));
  if (icc.subarray(36, 40).toString('latin1') !== 'acsp') throw new Error('the sRGB ICC profile from pdfkit is not an ICC profile');
  assets = { regular: readFileSync(join(fonts, 'DejaVuSans.ttf')), bold: readFileSync(join(fonts, 'DejaVuSans-Bold.ttf')), icc };
  return assets;
};

const CATEGORY_NAMES: Record<VatCategory, string> = {
  S: 'Standard rate',
  Z: 'Zero rated',
  E: 'Exempt',
  AE: 'Reverse charge',
  K: 'Intra-community supply',
  G: 'Export outside the EU',
  O: 'Not subject to VAT',
};

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const fxProperty = (name: string, description: string) =>
  `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;

/** The XMP packet: PDF/A-3B identification, Dublin Core and XMP basics matching the Info dictionary, the Factur-X schema. */
export const facturXXmp = (doc: InvoiceDocument, title: string, isoDate: string): string => `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>application/pdf</dc:format><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(title)}</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>${escapeXml(doc.seller.name)}</rdf:li></rdf:Seq></dc:creator></rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"><pdf:Producer>${PRODUCER}</pdf:Producer></rdf:Description>
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:CreatorTool>${PRODUCER}</xmp:CreatorTool><xmp:CreateDate>${isoDate}</xmp:CreateDate><xmp:ModifyDate>${isoDate}</xmp:ModifyDate><xmp:MetadataDate>${isoDate}</xmp:MetadataDate></rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
<pdfaSchema:namespaceURI>${FACTURX_NAMESPACE}</pdfaSchema:namespaceURI>
<pdfaSchema:prefix>fx</pdfaSchema:prefix>
<pdfaSchema:property><rdf:Seq>
${fxProperty('DocumentFileName', 'The name of the embedded XML document')}
${fxProperty('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER')}
${fxProperty('Version', 'The actual version of the standard applying to the embedded XML document')}
${fxProperty('ConformanceLevel', 'The conformance level of the embedded XML document')}
</rdf:Seq></pdfaSchema:property>
</rdf:li></rdf:Bag></pdfaExtension:schemas>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:fx="${FACTURX_NAMESPACE}"><fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>${FACTURX_FILENAME}</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>EN 16931</fx:ConformanceLevel></rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;

// ---------------------------------------------------------------------------------------------------------------------
// The page: A4, 40 pt margins, a cursor that moves down and opens a new page when the next row does not fit.

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 40;
const GREY = rgb(0.35, 0.35, 0.35);
const BLACK = rgb(0, 0, 0);

class Sheet {
  page!: PDFPage;
  y = 0;
  constructor(
    private readonly pdf: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
    private readonly footer: string,
  ) {
    this.newPage();
  }

  newPage() {
    this.page = this.pdf.addPage(A4);
    this.y = A4[1] - MARGIN;
    this.page.drawText(this.footer, { x: MARGIN, y: MARGIN - 20, size: 7, font: this.regular, color: GREY });
  }

  /** Room for `height` more points, else a new page. */
  need(height: number) {
    if (this.y - height < MARGIN) this.newPage();
  }

  /** Words wrapped to `width` at `size`. */
  wrap(text: string, width: number, size: number, font = this.regular): string[] {
    const lines: string[] = [];
    let current = '';
    for (const word of text.split(/\s+/).filter(Boolean)) {
      const candidate = current ? `${current} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= width || !current) current = candidate;
      else {
        lines.push(current);
        current = word;
      }
    }
    if (current) lines.push(current);
    // A single word wider than the column (a hash) is cut by characters.
    return lines.flatMap((l) => {
      if (font.widthOfTextAtSize(l, size) <= width) return [l];
      const parts: string[] = [];
      let part = '';
      for (const ch of l) {
        if (font.widthOfTextAtSize(part + ch, size) > width) {
          parts.push(part);
          part = ch;
        } else part += ch;
      }
      return [...parts, part];
    });
  }

  text(text: string, x: number, opts: { size?: number; bold?: boolean; color?: ReturnType<typeof rgb>; alignRight?: number } = {}) {
    const size = opts.size ?? 9;
    const font = opts.bold ? this.bold : this.regular;
    const dx = opts.alignRight !== undefined ? opts.alignRight - font.widthOfTextAtSize(text, size) : 0;
    this.page.drawText(text, { x: x + dx, y: this.y, size, font, color: opts.color ?? BLACK });
  }

  rule() {
    this.page.drawLine({ start: { x: MARGIN, y: this.y + 8 }, end: { x: A4[0] - MARGIN, y: this.y + 8 }, thickness: 0.5, color: GREY });
  }
}

const partyLines = (p: InvoiceParty): string[] =>
  [
    p.address.line1,
    [p.address.postcode, p.address.city].filter(Boolean).join(' '),
    p.address.country,
    p.siret ? `SIRET ${p.siret}` : null,
    p.vatId ? `VAT ${p.vatId}` : null,
    p.taxRegistrationId ? `Registration ${p.taxRegistrationId}` : null,
    p.email,
  ].filter((l): l is string => l != null && l !== '');

const drawParties = (s: Sheet, doc: InvoiceDocument) => {
  const half = (A4[0] - 2 * MARGIN) / 2;
  const columns = [
    { x: MARGIN, label: 'Seller', party: doc.seller },
    { x: MARGIN + half, label: 'Buyer', party: doc.buyer },
  ].map((c) => ({ ...c, lines: [...s.wrap(c.party.name, half - 10, 10, s.bold).map((t) => ({ t, bold: true })), ...partyLines(c.party).flatMap((l) => s.wrap(l, half - 10, 9)).map((t) => ({ t, bold: false }))] }));
  const rows = Math.max(...columns.map((c) => c.lines.length));
  s.need(14 + rows * 12);
  for (const c of columns) s.text(c.label.toUpperCase(), c.x, { size: 7, color: GREY });
  s.y -= 13;
  const top = s.y;
  for (const c of columns) {
    s.y = top;
    for (const l of c.lines) {
      s.text(l.t, c.x, { size: l.bold ? 10 : 9, bold: l.bold });
      s.y -= 12;
    }
  }
  s.y = top - rows * 12 - 8;
};

/** Columns of the lines table: description, quantity, unit price, discount, VAT, amount (right edges for numbers). */
const COLS = { desc: MARGIN, qty: 330, price: 395, discount: 445, vat: 495, amount: A4[0] - MARGIN };

const drawLines = (s: Sheet, doc: InvoiceDocument) => {
  const header = () => {
    s.need(30);
    s.text('Description', COLS.desc, { size: 8, bold: true });
    s.text('Qty', 0, { size: 8, bold: true, alignRight: COLS.qty });
    s.text('Unit price', 0, { size: 8, bold: true, alignRight: COLS.price });
    s.text('Discount', 0, { size: 8, bold: true, alignRight: COLS.discount });
    s.text('VAT', 0, { size: 8, bold: true, alignRight: COLS.vat });
    s.text('Amount (excl. VAT)', 0, { size: 8, bold: true, alignRight: COLS.amount });
    s.y -= 14;
    s.rule();
  };
  header();
  for (const l of doc.lines) {
    const desc = s.wrap(`${l.id}. ${l.name}`, COLS.qty - COLS.desc - 40, 9);
    if (s.y - desc.length * 11 < MARGIN) {
      s.newPage();
      header();
    }
    const discount = l.grossUnitPrice && l.grossUnitPrice !== l.netUnitPrice ? `from ${l.grossUnitPrice}` : '';
    s.text(String(l.quantity), 0, { alignRight: COLS.qty });
    s.text(l.netUnitPrice, 0, { alignRight: COLS.price });
    if (discount) s.text(discount, 0, { size: 7, color: GREY, alignRight: COLS.discount });
    s.text(l.vatCategory === 'S' ? `${l.vatRate} %` : l.vatCategory, 0, { alignRight: COLS.vat });
    s.text(l.netAmount, 0, { alignRight: COLS.amount });
    for (const d of desc) {
      s.text(d, COLS.desc);
      s.y -= 11;
    }
    s.y -= 3;
  }
};

const drawBreakdown = (s: Sheet, doc: InvoiceDocument) => {
  s.need(40);
  s.y -= 6;
  s.text('VAT breakdown', MARGIN, { size: 8, bold: true });
  s.text('Taxable', 0, { size: 8, bold: true, alignRight: 440 });
  s.text('VAT', 0, { size: 8, bold: true, alignRight: COLS.amount });
  s.y -= 14;
  s.rule();
  for (const b of doc.vatBreakdown) {
    const label = `${b.category} — ${CATEGORY_NAMES[b.category]}${b.category === 'S' ? ` ${b.rate} %` : ''}`;
    const reason = b.exemptionReason ? s.wrap(`${b.exemptionReason}${b.exemptionReasonCode ? ` (${b.exemptionReasonCode})` : ''}`, 300, 7) : [];
    s.need(12 + reason.length * 9);
    s.text(label, MARGIN);
    s.text(b.taxableAmount, 0, { alignRight: 440 });
    s.text(b.taxAmount, 0, { alignRight: COLS.amount });
    s.y -= 11;
    for (const r of reason) {
      s.text(r, MARGIN + 10, { size: 7, color: GREY });
      s.y -= 9;
    }
  }
};

const drawTotals = (s: Sheet, doc: InvoiceDocument) => {
  const t = doc.totals;
  const rows: Array<[string, string, boolean]> = [
    ['Total excl. VAT', t.taxBasisTotal, false],
    ['VAT', t.taxTotal, false],
    [`Total incl. VAT (${doc.currency})`, t.grandTotal, true],
    ['Paid', t.prepaid, false],
    ...(t.rounding !== '0.00' ? [['Rounding', t.rounding, false] as [string, string, boolean]] : []),
    ['Amount due', t.duePayable, true],
  ];
  s.need(12 + rows.length * 13);
  s.y -= 8;
  for (const [label, value, bold] of rows) {
    s.text(label, 360, { bold });
    s.text(value, 0, { bold, alignRight: COLS.amount });
    s.y -= 13;
  }
};

const drawFootnotes = (s: Sheet, doc: InvoiceDocument) => {
  const lines: Array<[string, string]> = [];
  if (doc.paymentReference) lines.push(['Payment reference', doc.paymentReference]);
  lines.push(['Payment', PAYMENT_MEANS_TEXT]);
  for (const note of doc.notes ?? []) lines.push(['Note', note]);
  s.y -= 8;
  for (const [label, value] of lines) {
    const wrapped = s.wrap(value, A4[0] - 2 * MARGIN - 100, 8);
    s.need(wrapped.length * 10 + 2);
    s.text(label, MARGIN, { size: 8, bold: true });
    for (const w of wrapped) {
      s.text(w, MARGIN + 100, { size: 8 });
      s.y -= 10;
    }
    s.y -= 2;
  }
};

const titleOf = (doc: InvoiceDocument) => `${doc.typeCode === '381' ? 'Credit note' : 'Invoice'} ${doc.number}`;

export const renderFacturX = async (doc: InvoiceDocument): Promise<Uint8Array> => {
  const xml = renderCii(doc);
  const { regular, bold, icc } = loadAssets();
  const issued = new Date(`${doc.issueDate}T00:00:00Z`);
  const isoDate = `${doc.issueDate}T00:00:00Z`;
  const title = titleOf(doc);

  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.registerFontkit(fontkit);
  // Fixed names: pdf-lib would otherwise suffix subset fonts with a number of its own.
  const regularFont = await pdf.embedFont(regular, { subset: true, customName: 'DejaVuSans' });
  const boldFont = await pdf.embedFont(bold, { subset: true, customName: 'DejaVuSans-Bold' });

  const s = new Sheet(pdf, regularFont, boldFont, `${title} — Factur-X EN 16931: the structured invoice is attached as ${FACTURX_FILENAME}`);
  s.text(doc.typeCode === '381' ? 'CREDIT NOTE' : 'INVOICE', MARGIN, { size: 18, bold: true });
  s.text(doc.number, 0, { size: 12, bold: true, alignRight: COLS.amount });
  s.y -= 18;
  const facts = [
    `Issued ${doc.issueDate}`,
    doc.deliveryDate ? `Delivered ${doc.deliveryDate}` : null,
    doc.buyerReference ? `Reference ${doc.buyerReference}` : null,
    doc.precedingInvoice ? `Corrects invoice ${doc.precedingInvoice.number} of ${doc.precedingInvoice.issueDate}` : null,
  ].filter((f): f is string => f !== null);
  for (const f of facts) {
    s.text(f, MARGIN, { size: 9, color: GREY });
    s.y -= 12;
  }
  s.y -= 10;
  drawParties(s, doc);
  drawLines(s, doc);
  drawBreakdown(s, doc);
  drawTotals(s, doc);
  drawFootnotes(s, doc);

  // The Info dictionary, matching the XMP (PDF/A requires both to agree).
  pdf.setTitle(title);
  pdf.setAuthor(doc.seller.name);
  pdf.setSubject(`Factur-X EN 16931 ${title}`);
  pdf.setProducer(PRODUCER);
  pdf.setCreator(PRODUCER);
  pdf.setCreationDate(issued);
  pdf.setModificationDate(issued);

  await pdf.attach(new TextEncoder().encode(xml), FACTURX_FILENAME, {
    mimeType: 'text/xml',
    description: 'Factur-X invoice, EN 16931 profile (CII D16B)',
    creationDate: issued,
    modificationDate: issued,
    afRelationship: AFRelationship.Alternative,
  });

  const { context, catalog } = pdf;
  const metadata = context.stream(new TextEncoder().encode(facturXXmp(doc, title, isoDate)), { Type: 'Metadata', Subtype: 'XML' });
  catalog.set(PDFName.of('Metadata'), context.register(metadata));
  const profile = context.register(context.flateStream(icc, { N: 3 }));
  const intent = context.obj({ Type: 'OutputIntent', S: 'GTS_PDFA1', OutputConditionIdentifier: PDFString.of(SRGB), Info: PDFString.of(SRGB), DestOutputProfile: profile });
  catalog.set(PDFName.of('OutputIntents'), context.obj([intent]));
  // PDF/A needs a file identifier: derived from the content, so it is stable too.
  const id = createHash('sha256').update(xml).digest('hex').slice(0, 32);
  context.trailerInfo.ID = context.obj([PDFHexString.of(id), PDFHexString.of(id)]);

  return pdf.save({ useObjectStreams: false });
};
