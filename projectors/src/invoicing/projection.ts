import { INVOICES_TABLE, invoiceRowOf } from '@cagnotte/read-models';
import type { Projection } from '../runtime';

/**
 * rm_invoices: one row per InvoiceIssued, written once (an invoice never changes: a correction is another invoice,
 * the credit note). A replayed or redelivered event finds its row and changes nothing.
 */
export const invoicesProjection: Projection = {
  name: 'invoices',
  tables: [INVOICES_TABLE],
  handles: (type) => type === 'InvoiceIssued',
  apply: async (trx, e, table) => {
    if (e.type !== 'InvoiceIssued') return;
    const row = invoiceRowOf(e.data);
    await trx(table(INVOICES_TABLE)).insert({ ...row, document: JSON.stringify(row.document) }).onConflict('invoice_id').ignore();
  },
};
