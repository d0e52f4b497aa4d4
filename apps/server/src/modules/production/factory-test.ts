/**
 * The factory test: a device reports its hardware (`hw`) and self-test results (`test`) on `P/up/info`
 * (docs/device-protocol.md). The gateway hands both here as received; each field is checked on its own and a bad
 * one is ignored (counted nowhere, never an error for the message), because a factory image with one odd field
 * must still have the rest recorded. The latest values go to device_hardware, compared with the hardware group of
 * the task that made the device.
 */
import { eq, sql } from 'drizzle-orm';
import {
  HW_CHECKED_FIELDS,
  HW_REPORT_FIELDS,
  HW_TEST_ITEMS_MAX,
  type HwReportField,
  type HwTestItem,
} from '@cellhub/contract/hardware';
import { isBadText } from '@cellhub/contract/text';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { deviceHardware } from '../hardware/hardware.table';
import { groupValues } from '../hardware/hardware.service';
import { productionTaskDevices, productionTasks } from './production.table';

const FIELD_MAX = 64;
const ITEM_NAME_MAX = 64;
const ITEM_DETAIL_MAX = 200;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const goodText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.trim().length > 0 && v.length <= max && !isBadText(v);

/** The usable fields of `hw`: strings of 1..64 characters (trimmed); anything else is left out. */
export function parseHw(hw: unknown): Partial<Record<HwReportField, string>> {
  const out: Partial<Record<HwReportField, string>> = {};
  if (!isRecord(hw)) return out;
  for (const f of HW_REPORT_FIELDS) {
    const v = hw[f];
    if (goodText(v, FIELD_MAX)) out[f] = v.trim();
  }
  return out;
}

/**
 * The usable part of `test`: `ok` when a boolean, and the items that have a name (1..64) and a boolean `ok`
 * (at most 32; `detail` kept when a string, cut to 200). Undefined when neither is usable.
 */
export function parseTest(test: unknown): { ok?: boolean; items?: HwTestItem[] } | undefined {
  if (!isRecord(test)) return undefined;
  const out: { ok?: boolean; items?: HwTestItem[] } = {};
  if (typeof test.ok === 'boolean') out.ok = test.ok;
  if (Array.isArray(test.items)) {
    const items: HwTestItem[] = [];
    for (const item of test.items.slice(0, HW_TEST_ITEMS_MAX)) {
      if (!isRecord(item) || !goodText(item.name, ITEM_NAME_MAX) || typeof item.ok !== 'boolean') continue;
      const detail =
        typeof item.detail === 'string' && !isBadText(item.detail)
          ? item.detail.slice(0, ITEM_DETAIL_MAX)
          : undefined;
      items.push({ name: item.name.trim(), ok: item.ok, ...(detail ? { detail } : {}) });
    }
    out.items = items;
    // A report of items without an overall verdict: it passed when every item passed.
    if (out.ok === undefined && items.length > 0) out.ok = items.every((i) => i.ok);
  }
  return out.ok === undefined && out.items === undefined ? undefined : out;
}

const COLUMN: Record<HwReportField, 'moduleModel' | 'moduleFw' | 'mcuId' | 'mac' | 'boardRevision'> = {
  module_model: 'moduleModel',
  module_fw: 'moduleFw',
  mcu_id: 'mcuId',
  mac: 'mac',
  board_revision: 'boardRevision',
};

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Records what one `up/info` said about the device's hardware and test, if anything usable: merged into the
 * device's row (first report time kept), with the fields that differ from its task's hardware group.
 */
export async function recordFactoryReport(
  deps: Deps,
  device: DeviceRef,
  hw: unknown,
  test: unknown,
): Promise<void> {
  const fields = parseHw(hw);
  const result = parseTest(test);
  if (Object.keys(fields).length === 0 && !result) return;
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(deviceHardware)
      .where(eq(deviceHardware.deviceId, device.id))
      .for('update');
    const [link] = await tx
      .select({ taskId: productionTasks.id, groupId: productionTasks.hwGroupId })
      .from(productionTaskDevices)
      .innerJoin(productionTasks, eq(productionTasks.id, productionTaskDevices.taskId))
      .where(eq(productionTaskDevices.deviceId, device.id));
    const merged = {
      moduleModel: fields.module_model ?? current?.moduleModel ?? '',
      moduleFw: fields.module_fw ?? current?.moduleFw ?? '',
      mcuId: fields.mcu_id ?? current?.mcuId ?? '',
      mac: fields.mac ?? current?.mac ?? '',
      boardRevision: fields.board_revision ?? current?.boardRevision ?? '',
    };
    const mismatch: string[] = [];
    if (link) {
      const values = (await groupValues(tx, [link.groupId])).get(link.groupId) ?? [];
      for (const [field, type] of Object.entries(HW_CHECKED_FIELDS) as [HwReportField, string][]) {
        const expected = values.find((v) => v.type === type);
        const reported = merged[COLUMN[field]];
        if (expected && reported !== '' && !same(expected.value, reported)) mismatch.push(field);
      }
    }
    const row = {
      ...merged,
      taskId: link?.taskId ?? null,
      testOk: result?.ok ?? current?.testOk ?? null,
      testItems: result?.items ?? current?.testItems ?? [],
      mismatch,
      lastAt: now,
    };
    await tx
      .insert(deviceHardware)
      .values({ deviceId: device.id, ...row, firstAt: now })
      .onConflictDoUpdate({
        target: deviceHardware.deviceId,
        set: { ...row, firstAt: sql`${deviceHardware.firstAt}` },
      });
  });
}
