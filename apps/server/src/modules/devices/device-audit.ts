import type { DbOrTx } from '../../db/client';
import { auditLogs } from '../audit/audit.table';

// The audit module's AuditAction union does not list device and product actions yet; this keeps the rows in the
// same table and the same transaction until it does.
export type DeviceAuditAction =
  | 'product_create'
  | 'product_update'
  | 'product_delete'
  | 'device_create'
  | 'device_update'
  | 'device_delete'
  | 'device_command'
  | 'device_config'
  | 'device_raw_send'
  | 'device_register';

export async function writeDeviceAudit(
  db: DbOrTx,
  entry: {
    uid: number | null;
    action: DeviceAuditAction;
    target: string;
    ip?: string;
    detail?: Record<string, unknown>;
  },
): Promise<void> {
  await db.insert(auditLogs).values({
    uid: entry.uid,
    action: entry.action,
    target: entry.target,
    ip: entry.ip ?? '',
    detail: entry.detail ?? {},
  });
}
