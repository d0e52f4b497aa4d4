import { sql } from 'drizzle-orm';
import type { InfoUp } from '@cellhub/contract/protocol';
import type { Deps } from '../lib/deps';
import { BatchQueue } from '../jobs/batch-queue';
import type { DeviceRef } from '../modules/devices/device-ref';
import { recordFactoryReport } from '../modules/production/factory-test';

interface Info {
  device: DeviceRef;
  info: InfoUp;
}

const TEXT = [
  'fw_version',
  'hw_version',
  'bootloader_version',
  'imei',
  'imsi',
  'iccid',
  'phone',
  'ipaddress',
  'cellular_mode',
  'band',
  'pci',
  'cell_id',
  'uplink',
  'login_protocol',
] as const;
const NUMBER = ['rssi', 'csq', 'signal_strength', 'latitude', 'longitude'] as const;

/**
 * `P/up/info` written together: every device sends one when it connects, so a connect storm of 10,000 devices
 * was 20,000 statements of its own (the row update and the SIM swap check) on the connection the CONNACKs wait
 * for. Infos are collected while the previous batch runs and written in one statement per batch: the SIM swaps
 * (a reported iccid that differs from the stored one, docs/sim.md) and the reported fields, each device's infos
 * of a batch merged in order. Same effect as applyInfo (device-presence.service), one `device.info` event per
 * message once written.
 */
export class InfoWriter {
  private readonly queue: BatchQueue<Info, void, number>;

  constructor(private readonly deps: Deps) {
    this.queue = new BatchQueue<Info, void, number>({
      name: 'device infos',
      run: (batch) => this.write(batch),
      maxBatch: 1000,
      maxDelayMs: 0,
      maxQueued: 20_000,
      key: (i) => i.device.id,
      merge: (a, b) => ({ device: b.device, info: { ...a.info, ...b.info } }),
    });
  }

  /** Resolves once the info is written (its PUBACK then means stored). */
  async add(device: DeviceRef, info: InfoUp): Promise<void> {
    await this.queue.add({ device, info });
    // Factory-test reports are rare (a device's first connects at the factory): written on their own.
    if (info.hw !== undefined || info.test !== undefined)
      await recordFactoryReport(this.deps, device, info.hw, info.test);
    this.deps.events.publish(
      { type: 'device.info', sn: device.sn, product_key: device.productKey, fields: { ...info } },
      { uid: device.uid },
    );
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }

  private async write(batch: readonly Info[]): Promise<void> {
    const fields = batch.map(({ info }) => {
      const f: Record<string, string | number> = {};
      for (const k of TEXT) if (info[k] !== undefined) f[k] = String(info[k]);
      for (const k of NUMBER) if (info[k] !== undefined) f[k] = info[k];
      return JSON.stringify(f);
    });
    const text = (k: string) => sql.raw(`${k} = coalesce(v.f->>'${k}', d.${k})`);
    const num = (k: string) => sql.raw(`${k} = coalesce((v.f->>'${k}')::float8, d.${k})`);
    const at = this.deps.now().toISOString();
    // Both parts read the rows as they were before the statement, so the swap sees the old iccid.
    await this.deps.db.execute(sql`
      with v as (
        select * from unnest(${sql.param(batch.map((i) => i.device.id))}::int[], ${sql.param(fields)}::jsonb[])
          as v(id, f)
      ),
      swaps as (
        insert into sim_swaps (device_id, sn, old_iccid, new_iccid, at)
        select d.id, d.sn, d.iccid, v.f->>'iccid', ${at}::timestamptz from devices d join v on v.id = d.id
        where coalesce(v.f->>'iccid', '') <> '' and d.iccid <> '' and d.iccid <> v.f->>'iccid'
      )
      update devices d set ${sql.join([...TEXT.map(text), ...NUMBER.map(num)], sql`, `)},
        updatedat = ${at}::timestamptz
      from v where d.id = v.id`);
  }
}
