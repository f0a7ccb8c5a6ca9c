import { decideIssue, invoiceSeriesAggregate, invoiceStream, type IssueInvoice, type IssuedRef } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import type { Position } from '@cagnotte/infra';
import { type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';

export interface IssueOutcome {
  /** The invoice of this source in the series: just issued, or issued before. */
  invoice: IssuedRef;
  /** Whether this call issued it (false: it was already). */
  issued: boolean;
  position: Position | null;
}

/**
 * Issues one invoice on its issuer's series: read the series stream, decide (number = last + 1, or nothing when the
 * source was issued already), append with the expected revision. A concurrent issue that took the number first makes
 * the append fail; runCommand reads again and decides again, so the loser takes the next number: none is skipped,
 * none is taken twice (docs/invoicing.md#numbering).
 */
export const issueInvoice = async (runtime: CommandRuntime, command: IssueInvoice, metadata: EventMetadata): Promise<IssueOutcome> => {
  const outcome = await executeCommand(runtime, {
    stream: invoiceStream(command.tenantId, command.issuer, command.kind),
    aggregate: invoiceSeriesAggregate,
    decide: (series) => decideIssue(series, command),
    metadata,
  });
  const invoice = outcome.state.bySource.get(command.sourceKey);
  if (!invoice) throw new Error(`invoice of ${command.sourceKey} missing after its issue`);
  return { invoice, issued: outcome.events.length > 0, position: outcome.position };
};
