import { eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import {
  DEVICE_LINE_RULES,
  deviceImportRow,
  deviceLineReason,
  type DeviceImportLine,
  type DeviceImportResult,
  type DeviceImportRow,
} from '@cellhub/contract/devices';
import { BAD_TEXT_MESSAGE } from '@cellhub/contract/text';
import { canManage, isAdmin, requireScope } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { writeDeviceLog } from '../device-log/device-log.service';
import { visibleProduct } from '../products/products.service';
import type { ImportRow } from './device-import-file';
import { deviceSecretContext, newDeviceSecret } from './devices.service';
import { devices } from './devices.table';
import { syncDevicesPlatformParams } from '../platforms/platform-params.service';
import { adoptProductDefault } from '../data-templates/data-templates.service';

interface ImportOptions {
  productKey: string;
  updateOnly: boolean;
}

/** Cells of a row as device columns; `sn` is the key, not a field to change. */
function fieldsOf(r: DeviceImportRow) {
  const { sn: _sn, ...rest } = r;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<
    DeviceImportRow,
    'sn'
  >;
}

/** The first broken rule of a row as field + rule key (the contract's messages are the rule keys). */
function issueReason(issue: z.core.$ZodIssue | undefined) {
  const field = issue?.path.join('.') || 'row';
  if (issue?.code === 'too_big' && typeof issue.maximum === 'number') {
    return deviceLineReason(field, 'too_long', { max: issue.maximum });
  }
  if (issue?.message === BAD_TEXT_MESSAGE) return deviceLineReason(field, 'bad_text');
  const rule = DEVICE_LINE_RULES.find((r) => r === issue?.message);
  return deviceLineReason(field, rule ?? 'invalid');
}

/**
 * Creates and updates devices of one product from the rows of a file, with one result per row. Existing devices of
 * the product that the caller may see are updated (only the cells that are filled); new SNs are created unless
 * `updateOnly`; every other row is reported with the code that says why.
 */
export async function importDevices(
  deps: Deps,
  actor: Actor,
  opts: ImportOptions,
  rows: ImportRow[],
): Promise<DeviceImportResult> {
  requireScope(actor, 'devices:write');
  const product = await visibleProduct(deps, actor, opts.productKey);
  const lines = new Map<number, DeviceImportLine>();
  const valid: { row: number; data: DeviceImportRow }[] = [];
  const firstRowOf = new Map<string, number>();
  for (const r of rows) {
    const sn = r.values.sn ?? '';
    const parsed = deviceImportRow.safeParse(r.values);
    if (!parsed.success) {
      lines.set(r.row, {
        row: r.row,
        sn,
        code: 10113,
        result: 'invalid',
        ...issueReason(parsed.error.issues[0]),
      });
      continue;
    }
    const first = firstRowOf.get(sn);
    if (first !== undefined) {
      lines.set(r.row, {
        row: r.row,
        sn,
        code: 10113,
        result: 'invalid',
        ...deviceLineReason('sn', 'duplicate', { row: first }),
      });
      continue;
    }
    firstRowOf.set(sn, r.row);
    valid.push({ row: r.row, data: parsed.data });
  }

  const existing = new Map<string, { id: number; productKey: string; uid: number | null }>();
  for (let i = 0; i < valid.length; i += 1000) {
    const chunk = valid.slice(i, i + 1000).map((v) => v.data.sn);
    const found = await deps.db
      .select({ id: devices.id, sn: devices.sn, productKey: devices.productKey, uid: devices.uid })
      .from(devices)
      .where(inArray(devices.sn, chunk));
    for (const f of found) existing.set(f.sn, f);
  }

  const owner = isAdmin(actor) ? null : actor.uid;
  const toCreate: { row: number; data: DeviceImportRow }[] = [];
  const toUpdate: { row: number; id: number; data: DeviceImportRow }[] = [];
  for (const v of valid) {
    const { sn } = v.data;
    const e = existing.get(sn);
    if (!e) {
      if (opts.updateOnly) lines.set(v.row, { row: v.row, sn, code: 10117, result: 'not_found' });
      else toCreate.push(v);
    } else if (e.productKey !== product.productKey) {
      lines.set(v.row, { row: v.row, sn, code: 20403, result: 'wrong_product' });
    } else if (!canManage(actor, e)) {
      // Someone else's device: it exists, and that is all the caller learns.
      lines.set(v.row, { row: v.row, sn, code: 20402, result: 'exists' });
    } else {
      toUpdate.push({ row: v.row, id: e.id, data: v.data });
    }
  }

  const created: { id: number; sn: string }[] = [];
  if (toCreate.length || toUpdate.length) {
    await deps.db.transaction(async (tx) => {
      for (let i = 0; i < toCreate.length; i += 500) {
        const batch = toCreate.slice(i, i + 500);
        created.push(
          ...(await tx
            .insert(devices)
            .values(
              batch.map(({ data }) => ({
                ...fieldsOf(data),
                sn: data.sn,
                productKey: product.productKey,
                uid: owner,
                secret: deps.box.encrypt(newDeviceSecret(), deviceSecretContext(data.sn)),
              })),
            )
            // Created meanwhile by someone else: reported as existing below.
            .onConflictDoNothing()
            .returning({ id: devices.id, sn: devices.sn })),
        );
      }
      await adoptProductDefault(
        tx,
        product.productKey,
        created.map((c) => c.id),
      );
      const createdSns = new Set(created.map((c) => c.sn));
      for (const v of toCreate) {
        const ok = createdSns.has(v.data.sn);
        lines.set(v.row, {
          row: v.row,
          sn: v.data.sn,
          code: ok ? 0 : 20402,
          result: ok ? 'created' : 'exists',
        });
      }
      for (const u of toUpdate) {
        const fields = fieldsOf(u.data);
        if (Object.keys(fields).length) await tx.update(devices).set(fields).where(eq(devices.id, u.id));
        lines.set(u.row, { row: u.row, sn: u.data.sn, code: 0, result: 'updated' });
      }
      await writeDeviceLog(
        tx,
        ...created.map((c) => ({
          deviceId: c.id,
          event: 'created' as const,
          detail: { by: actor.username, uid: owner, import: true },
        })),
        ...toUpdate.map((u) => ({
          deviceId: u.id,
          event: 'updated' as const,
          detail: { by: actor.username, import: true, ...fieldsOf(u.data) },
        })),
      );
      if (created.length) {
        await writeAudit(tx, {
          uid: actor.uid,
          action: 'device_import',
          target: `product:${product.productKey}`,
          ip: actor.ip,
          detail: { op: 'create', count: created.length, sn: created.slice(0, 100).map((c) => c.sn) },
        });
      }
      if (toUpdate.length) {
        await writeAudit(tx, {
          uid: actor.uid,
          action: 'device_import',
          target: `product:${product.productKey}`,
          ip: actor.ip,
          detail: { op: 'update', count: toUpdate.length, sn: toUpdate.slice(0, 100).map((u) => u.data.sn) },
        });
      }
    });
  }
  // New devices are known to the gateway now (and to a broker holding credentials, docs/external-brokers.md).
  for (const c of created) deps.link.invalidate(c.sn);
  // New devices of a product bound to a cloud platform get their iot_platform_param at once.
  if (created.length) {
    const ids = created.map((c) => c.id);
    await writeDeviceLog(deps.db, ...(await syncDevicesPlatformParams(deps, product.productKey, ids)));
  }

  const sorted = [...lines.values()].sort((a, b) => a.row - b.row);
  return {
    total: sorted.length,
    created: sorted.filter((l) => l.result === 'created').length,
    updated: sorted.filter((l) => l.result === 'updated').length,
    failed: sorted.filter((l) => l.code !== 0).length,
    lines: sorted,
  };
}
