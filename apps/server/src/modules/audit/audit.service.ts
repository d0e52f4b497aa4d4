import type { DbOrTx } from '../../db/client';
import { auditLogs } from './audit.table';

export type AuditAction =
  | 'sign_in'
  | 'sign_in_failed'
  | 'sign_out'
  | 'register'
  | 'password_change'
  | 'phone_change'
  | 'profile_change'
  | 'wechat_bind'
  | 'wechat_unbind'
  | 'user_disable'
  | 'user_create'
  | 'user_enable'
  | 'user_password_reset'
  | 'admin_created'
  | 'product_create'
  | 'product_update'
  | 'product_delete'
  | 'product_secret_rotate'
  | 'platform_create'
  | 'platform_update'
  | 'platform_delete'
  | 'device_create'
  | 'device_update'
  | 'device_delete'
  | 'device_command'
  | 'device_config'
  | 'device_raw_send'
  | 'device_register'
  | 'device_bind'
  | 'device_unbind'
  | 'device_import'
  | 'user_command_create'
  | 'user_command_update'
  | 'user_command_delete'
  | 'config_template_create'
  | 'config_template_update'
  | 'config_template_delete';

export interface AuditEntry {
  uid: number | null;
  action: AuditAction;
  target?: string;
  ip?: string;
  detail?: Record<string, unknown>;
}

/** Pass the transaction that makes the change, so the row exists exactly when the change does. */
export async function writeAudit(db: DbOrTx, entry: AuditEntry): Promise<void> {
  await db.insert(auditLogs).values({
    uid: entry.uid,
    action: entry.action,
    target: entry.target ?? '',
    ip: entry.ip ?? '',
    detail: entry.detail ?? {},
  });
}
