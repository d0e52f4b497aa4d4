/**
 * The live shares of this instance, in memory, for the places that decide per event and cannot wait for the
 * database: the browser stream (realtime/ws-hub.ts asks `grantsOf(sn)` for every device event) and the alert
 * evaluator (a share holder's rule watches the shared device while the share lives).
 *
 * Kept true by `share.changed` on the domain bus (emitted after a share write commits; relayed from other instances
 * over the `cellhub_share_changes` channel by shares.plugin.ts): the devices named are dropped AT ONCE (so a revoked
 * share delivers nothing more, even before the re-read ends) and read again. Expiry needs no event: each grant
 * carries `expiresAt` and the reader compares it with now at send time. An owner change needs none either: a grant
 * counts only while the event's owner uid is the grant's owner (the database deletes such shares anyway).
 * A full re-read runs at start, after the channel connection came back, and every `refreshMs` as a safety net.
 */
import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { devices } from '../devices/devices.table';
import { deviceShares } from './shares.table';

export interface AudienceGrant {
  /** The grantee. */
  uid: number;
  /** The owner who shared it: counts only while the device still belongs to them. */
  ownerUid: number;
  right: 'view' | 'control';
  expiresAt: Date | null;
}

const NONE: readonly AudienceGrant[] = [];

export class ShareAudienceCache {
  private bySn = new Map<string, AudienceGrant[]>();
  private snById = new Map<number, string>();
  /** Bumped by every drop, so a re-read that started before a change does not put back what it dropped. */
  private epoch = 0;

  /** The live and expired-but-not-yet-reread grants of a device (callers check expiry with `liveShare`). */
  grantsOf(sn: string): readonly AudienceGrant[] {
    return this.bySn.get(sn) ?? NONE;
  }

  /** Forgets the grants of these devices now (fail closed until `reloadDevices` reads them again). */
  drop(deviceIds: readonly number[]): void {
    this.epoch++;
    for (const id of deviceIds) {
      const sn = this.snById.get(id);
      if (sn !== undefined) this.bySn.delete(sn);
      this.snById.delete(id);
    }
  }

  /** Re-reads every live share. */
  async reloadAll(db: DbOrTx): Promise<void> {
    const epoch = this.epoch;
    const rows = await this.read(db);
    if (epoch !== this.epoch) return this.reloadAll(db);
    this.bySn = new Map();
    this.snById = new Map();
    this.put(rows);
  }

  /** Re-reads the live shares of these devices (after `drop`). */
  async reloadDevices(db: DbOrTx, deviceIds: readonly number[]): Promise<void> {
    if (deviceIds.length === 0) return;
    const epoch = this.epoch;
    const rows = await this.read(db, deviceIds);
    // Something was dropped meanwhile: these rows may predate it, so read again (the newest read wins).
    if (epoch !== this.epoch) return this.reloadDevices(db, deviceIds);
    for (const id of deviceIds) {
      const sn = this.snById.get(id);
      if (sn !== undefined) this.bySn.delete(sn);
    }
    this.put(rows);
  }

  private put(rows: { id: number; sn: string; grant: AudienceGrant }[]): void {
    for (const r of rows) {
      this.snById.set(r.id, r.sn);
      const list = this.bySn.get(r.sn);
      if (list) list.push(r.grant);
      else this.bySn.set(r.sn, [r.grant]);
    }
  }

  private async read(db: DbOrTx, deviceIds?: readonly number[]) {
    const rows = await db
      .select({
        id: devices.id,
        sn: devices.sn,
        uid: deviceShares.granteeUid,
        ownerUid: deviceShares.ownerUid,
        right: deviceShares.right,
        expiresAt: deviceShares.expiresAt,
      })
      .from(deviceShares)
      .innerJoin(devices, eq(devices.id, deviceShares.deviceId))
      .where(
        and(
          or(isNull(deviceShares.expiresAt), gt(deviceShares.expiresAt, sql`now()`)),
          deviceIds ? inArray(deviceShares.deviceId, [...deviceIds]) : undefined,
        ),
      );
    return rows.map((r) => ({
      id: r.id,
      sn: r.sn,
      grant: { uid: r.uid, ownerUid: r.ownerUid, right: r.right, expiresAt: r.expiresAt },
    }));
  }
}
