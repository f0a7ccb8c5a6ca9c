import type { Knex } from 'knex';
import type { MandateKind } from '@cagnotte/event-schemas';
import type { MandateDoc } from './fold';

export const MANDATES_TABLE = 'rm_mandates';

export interface MandateRow {
  mandate_id: string;
  owner_id: string;
  tenant_id: string | null;
  kind: string;
  status: string;
  version: string;
  hash: string;
  accepted_at: string;
  accepted_ip: string | null;
  accepted_revision: string;
  revoked_at: string | null;
  revoked_ip: string | null;
  revision: string;
}

export const mandateRowOf = (d: MandateDoc): MandateRow => ({
  mandate_id: d.mandateId,
  owner_id: d.ownerId,
  tenant_id: d.tenantId,
  kind: d.kind,
  status: d.status,
  version: d.version,
  hash: d.hash,
  accepted_at: d.acceptedAt,
  accepted_ip: d.acceptedIp,
  accepted_revision: d.acceptedRevision.toString(),
  revoked_at: d.revokedAt,
  revoked_ip: d.revokedIp,
  revision: d.revision.toString(),
});

export const mandateDocOf = (r: MandateRow): MandateDoc => ({
  mandateId: r.mandate_id,
  ownerId: r.owner_id,
  tenantId: r.tenant_id,
  kind: r.kind as MandateKind,
  status: r.status as MandateDoc['status'],
  version: r.version,
  hash: r.hash,
  acceptedAt: r.accepted_at,
  acceptedIp: r.accepted_ip,
  acceptedRevision: BigInt(r.accepted_revision),
  revokedAt: r.revoked_at,
  revokedIp: r.revoked_ip,
  revision: BigInt(r.revision),
});

/** The caller's own mandates: every query is scoped to the owner, so another user's mandate is never found. */
export class MandateReadModel {
  constructor(private readonly knex: Knex) {}

  /** Every acceptance of the user, revoked ones included, newest first. */
  async listOwn(ownerId: string): Promise<MandateDoc[]> {
    const rows = await this.knex<MandateRow>(MANDATES_TABLE).where({ owner_id: ownerId }).orderBy('accepted_revision', 'desc');
    return rows.map(mandateDocOf);
  }
}
