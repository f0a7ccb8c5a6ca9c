/**
 * The EU's own validation of a CII invoice, for specs: the UN/CEFACT CII D16B XSD (through xmllint-wasm) and the CEN
 * EN 16931 Schematron for CII, compiled to SEF for saxon-js. Both are vendored in infra/einvoicing/ (EUPL-1.2, see its
 * README) so a fresh clone validates without ../shared. Test-only: not exported from the package index; import it by
 * path (`@cagnotte/infra/src/invoicing/validate.testing`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import SaxonJS from 'saxon-js';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

export const EINVOICING_DIR = join(__dirname, '..', '..', 'einvoicing');

export interface FailedRule {
  /** The rule id: BR-01, BR-CO-16, BR-S-08, … */
  id: string;
  text: string;
  /** The XPath of the node the rule failed on. */
  location: string;
}

export interface CiiValidation {
  xsdValid: boolean;
  xsdErrors: string[];
  /** Failed asserts flagged fatal: an invoice with any is not an EN 16931 invoice. */
  fatal: FailedRule[];
  warnings: FailedRule[];
}

let artefacts: { sef: unknown; mainXsd: XMLFileInfo; preload: XMLFileInfo[] } | undefined;

/** The SEF is 5 MB of JSON: read and parsed once per process. */
const load = () => {
  if (artefacts) return artefacts;
  const xsdDir = join(EINVOICING_DIR, 'xsd');
  const xsd = readdirSync(xsdDir).map((fileName) => ({ fileName, contents: readFileSync(join(xsdDir, fileName), 'utf8') }));
  const mainXsd = xsd.find((f) => f.fileName === 'CrossIndustryInvoice_100pD16B.xsd');
  if (!mainXsd) throw new Error(`no CrossIndustryInvoice_100pD16B.xsd in ${xsdDir}`);
  artefacts = {
    sef: JSON.parse(readFileSync(join(EINVOICING_DIR, 'EN16931-CII-validation.sef.json'), 'utf8')),
    mainXsd,
    preload: xsd.filter((f) => f !== mainXsd),
  };
  return artefacts;
};

const unescape = (text: string): string =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');

const attribute = (tag: string, name: string): string => unescape(new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '');

/** Every `svrl:failed-assert` of a report, with its flag. */
export const failedAsserts = (svrl: string): Array<FailedRule & { flag: string }> =>
  [...svrl.matchAll(/<svrl:failed-assert\b([^>]*)>([\s\S]*?)<\/svrl:failed-assert>/g)].map((m) => ({
    id: attribute(m[1]!, 'id') || '?',
    flag: attribute(m[1]!, 'flag'),
    // The Schematron writes `/*:Name[namespace-uri()='…'][1]` for each step: kept as `/Name[1]`, readable.
    location: attribute(m[1]!, 'location').replace(/\*:(\w+)\[namespace-uri\(\)='[^']*'\]/g, '$1'),
    text: unescape(/<svrl:text>([\s\S]*?)<\/svrl:text>/.exec(m[2]!)?.[1] ?? '').replace(/\s+/g, ' ').trim(),
  }));

export const validateCii = async (xml: string): Promise<CiiValidation> => {
  const { sef, mainXsd, preload } = load();
  const schema = await validateXML({ xml: [{ fileName: 'invoice.xml', contents: xml }], schema: [mainXsd], preload });
  const report = SaxonJS.transform({ stylesheetInternal: sef, sourceText: xml, destination: 'serialized' }, 'sync').principalResult;
  const asserts = failedAsserts(report);
  const strip = ({ flag: _flag, ...rule }: FailedRule & { flag: string }): FailedRule => rule;
  return {
    xsdValid: schema.valid,
    xsdErrors: schema.errors.map((e) => e.message),
    fatal: asserts.filter((a) => a.flag === 'fatal').map(strip),
    warnings: asserts.filter((a) => a.flag !== 'fatal').map(strip),
  };
};

/** One line per failure, for an assertion message a reader can act on. */
export const describeValidation = (v: CiiValidation): string =>
  [...v.xsdErrors.slice(0, 5).map((e) => `XSD: ${e}`), ...v.fatal.map((f) => `${f.id} at ${f.location}: ${f.text}`)].join('\n') || 'valid';
