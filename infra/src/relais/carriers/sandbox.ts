import { createHash, randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';
import { Closure, PickupPointStatus, type CarrierAdapter, type LabelOutcome, type LabelRequest, type OpeningHours, type PickupPoint, type PickupPointKind, type PointQuery } from '@cagnotte/event-schemas';
import { CarrierError } from './wire';

// The sandbox carrier (docs/relais.md): fixture points near every searched place, the same ids everywhere, each
// tenant's own overrides of them (table relais_sandbox_points, shared by every process), injectable latency and
// failures. `search` and `get` answer the fixtures alone, the same for every tenant, so the directory may cache them;
// `overlay` applies a tenant's overrides, and the directory calls it after its cache on every request.

/** Postal codes that make the sandbox network fail: documented magic values. */
export const SANDBOX_TIMEOUT_POSTAL_CODE = '99001';
export const SANDBOX_ERROR_POSTAL_CODE = '99002';
export const SANDBOX_POINTS_TABLE = 'relais_sandbox_points';
/** Where `get` places the fixtures (it knows no searched place): central Paris. */
const HOME = { lat: 48.8566, lng: 2.3522, postalCode: '75004' };

const RELAY_HOURS: OpeningHours = Object.fromEntries(
  ['1', '2', '3', '4', '5', '6'].map((d) => [d, [{ open: '09:00', close: '12:30' }, { open: '14:00', close: '19:00' }]]),
);
const LOCKER_HOURS: OpeningHours = Object.fromEntries(['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, [{ open: '00:00', close: '23:59' }]]));

interface Fixture {
  pointId: string;
  name: string;
  kind: PickupPointKind;
  /** Metres north and east of the searched place. */
  north: number;
  east: number;
  maxWeightG: number;
  status: PickupPointStatus;
  /** A closure from today for this many days (SBX-HOLIDAY). */
  holidayDays?: number;
}

export const SANDBOX_FIXTURES: readonly Fixture[] = [
  { pointId: 'SBX-001', name: 'Tabac de la Gare (sandbox)', kind: 'relay', north: 180, east: 160, maxWeightG: 20_000, status: 'active' },
  { pointId: 'SBX-002', name: 'Épicerie du Marché (sandbox)', kind: 'relay', north: -420, east: 380, maxWeightG: 20_000, status: 'active' },
  { pointId: 'SBX-003', name: 'Librairie des Tilleuls (sandbox)', kind: 'relay', north: 700, east: -820, maxWeightG: 20_000, status: 'active' },
  { pointId: 'SBX-004', name: 'Pressing Central (sandbox)', kind: 'relay', north: -1500, east: -900, maxWeightG: 20_000, status: 'active' },
  { pointId: 'SBX-005', name: 'Fleuriste du Parc (sandbox)', kind: 'relay', north: 2100, east: 1500, maxWeightG: 20_000, status: 'active' },
  { pointId: 'SBX-LOCKER', name: 'Consigne automatique (sandbox)', kind: 'locker', north: -300, east: -150, maxWeightG: 15_000, status: 'active' },
  { pointId: 'SBX-LIGHT', name: 'Kiosque à journaux (sandbox, 1 kg max)', kind: 'relay', north: 520, east: 560, maxWeightG: 1_000, status: 'active' },
  { pointId: 'SBX-HOLIDAY', name: 'Boulangerie en congés (sandbox)', kind: 'relay', north: 950, east: 300, maxWeightG: 20_000, status: 'active', holidayDays: 14 },
  { pointId: 'SBX-RETIRED', name: 'Ancien relais fermé (sandbox)', kind: 'relay', north: 600, east: -200, maxWeightG: 20_000, status: 'retired' },
];

const Override = z.object({ point_id: z.string(), status: PickupPointStatus.nullable(), closures: z.array(Closure).nullable(), max_weight_g: z.number().int().nullable() });
type Override = z.infer<typeof Override>;

/** A deterministic place for a postal code (inside metropolitan France's box): the same code, the same place. */
export const sandboxCenter = (country: string, postalCode: string): { lat: number; lng: number } => {
  const h = createHash('sha256').update(`${country}:${postalCode}`).digest();
  return { lat: 43.5 + (h.readUInt32BE(0) / 2 ** 32) * 6.5, lng: -1 + (h.readUInt32BE(4) / 2 ** 32) * 8 };
};

const offset = (c: { lat: number; lng: number }, north: number, east: number) => ({
  lat: Math.round((c.lat + north / 111_320) * 1e6) / 1e6,
  lng: Math.round((c.lng + east / (111_320 * Math.cos((c.lat * Math.PI) / 180))) * 1e6) / 1e6,
});

const addDays = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000).toISOString().slice(0, 10);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

export interface SandboxCarrierOptions {
  knex: Knex;
  /** Added to every call (RELAIS_SANDBOX_LATENCY_MS). */
  latencyMs?: number | (() => number);
  now?: () => Date;
}

export class SandboxCarrier implements CarrierAdapter {
  readonly network = 'sandbox' as const;
  constructor(private readonly o: SandboxCarrierOptions) {}

  private now = () => this.o.now?.() ?? new Date();

  /** The tenant's overrides by point id (within the network); none without a tenant. */
  private async overrides(tenantId: string | null): Promise<Map<string, Override>> {
    if (!tenantId) return new Map();
    const rows = await this.o.knex(SANDBOX_POINTS_TABLE).where({ tenant_id: tenantId }).select('point_id', 'status', 'closures', 'max_weight_g');
    return new Map(rows.map((r: unknown) => Override.parse(r)).map((r) => [r.point_id, r]));
  }

  private async latency(signal: AbortSignal) {
    const ms = typeof this.o.latencyMs === 'function' ? this.o.latencyMs() : (this.o.latencyMs ?? 0);
    if (ms > 0) await sleep(ms, signal);
  }

  private point(f: Fixture, center: { lat: number; lng: number }, place: { postalCode: string; country: string }): PickupPoint {
    const today = this.now();
    const closures = f.holidayDays ? [{ from: addDays(today, 0), to: addDays(today, f.holidayDays), reason: 'Congés (sandbox)' }] : [];
    return {
      id: `sandbox:${f.pointId}`,
      network: 'sandbox',
      kind: f.kind,
      name: f.name,
      address: { line1: `${1 + (Math.abs(f.north + f.east) % 97)} rue du Bac à Sable`, postalCode: place.postalCode, city: 'Sandbox-Ville', country: place.country },
      geo: offset(center, f.north, f.east),
      openingHours: f.kind === 'locker' ? LOCKER_HOURS : RELAY_HOURS,
      closures,
      maxWeightG: f.maxWeightG,
      status: f.status,
      fetchedAt: today.toISOString(),
    };
  }

  async search(q: PointQuery, signal: AbortSignal): Promise<PickupPoint[]> {
    if (q.postalCode === SANDBOX_TIMEOUT_POSTAL_CODE) {
      // Never answers: the directory's timeout ends the wait.
      await sleep(24 * 3600_000, signal);
    }
    await this.latency(signal);
    if (q.postalCode === SANDBOX_ERROR_POSTAL_CODE) throw new CarrierError(this.network, 'injected failure (postal code 99002)');
    const center = q.lat !== undefined && q.lng !== undefined ? { lat: q.lat, lng: q.lng } : sandboxCenter(q.country, q.postalCode ?? '');
    // Every fixture, SBX-RETIRED too: the directory offers active points only, after the tenant's overlay (a tenant
    // may bring it back to life in its own sandbox).
    return SANDBOX_FIXTURES.map((f) => this.point(f, center, { postalCode: q.postalCode ?? HOME.postalCode, country: q.country }));
  }

  async get(pointId: string, _tenantId: string | null, signal: AbortSignal): Promise<PickupPoint | null> {
    await this.latency(signal);
    const f = SANDBOX_FIXTURES.find((x) => x.pointId === pointId);
    if (!f) return null;
    return this.point(f, HOME, { postalCode: HOME.postalCode, country: 'FR' });
  }

  /** The points as `tenantId`'s sandbox has them: its overrides applied (a column it left null keeps the fixture's value). */
  async overlay(points: PickupPoint[], tenantId: string | null): Promise<PickupPoint[]> {
    if (!tenantId || points.length === 0) return points;
    const overrides = await this.overrides(tenantId);
    if (overrides.size === 0) return points;
    return points.map((p) => {
      const o = p.id.startsWith('sandbox:') ? overrides.get(p.id.slice('sandbox:'.length)) : undefined;
      if (!o) return p;
      return { ...p, status: o.status ?? p.status, closures: o.closures ?? p.closures, maxWeightG: o.max_weight_g ?? p.maxWeightG };
    });
  }

  /** `SBX` + 12 digits; a requested tracking number is kept (the magic ones, docs/relais.md). Refused for a point that is not active. */
  async createLabel(request: LabelRequest, signal: AbortSignal): Promise<LabelOutcome> {
    // The label names the point as everyone does, `sandbox:<pointId>`; `get` takes the id within the network.
    const within = request.pointId.startsWith('sandbox:') ? request.pointId.slice('sandbox:'.length) : request.pointId;
    const fixture = await this.get(within, null, signal);
    const [point] = fixture ? await this.overlay([fixture], request.tenantId ?? null) : [];
    if (!point) return { ok: false, refused: `unknown sandbox point ${request.pointId}` };
    if (point.status !== 'active') return { ok: false, refused: `the point is ${point.status.replace('_', ' ')}` };
    if (point.maxWeightG !== undefined && request.weightG > point.maxWeightG) return { ok: false, refused: `the point takes parcels up to ${point.maxWeightG} g` };
    return { ok: true, trackingNumber: request.trackingNumber ?? `SBX${Array.from({ length: 12 }, () => randomInt(10)).join('')}` };
  }
}

/** Sets a sandbox point's overrides in one tenant's sandbox (no other tenant sees them); returns whether the fixture exists. */
export const overrideSandboxPoint = async (
  knex: Knex,
  tenantId: string,
  pointId: string,
  change: { status?: PickupPointStatus; closures?: Closure[]; maxWeightG?: number },
): Promise<boolean> => {
  if (!SANDBOX_FIXTURES.some((f) => f.pointId === pointId)) return false;
  const row: Record<string, unknown> = { tenant_id: tenantId, point_id: pointId, updated_at: knex.fn.now() };
  if (change.status !== undefined) row.status = change.status;
  if (change.closures !== undefined) row.closures = JSON.stringify(change.closures);
  if (change.maxWeightG !== undefined) row.max_weight_g = change.maxWeightG;
  await knex(SANDBOX_POINTS_TABLE).insert(row).onConflict(['tenant_id', 'point_id']).merge();
  return true;
};
