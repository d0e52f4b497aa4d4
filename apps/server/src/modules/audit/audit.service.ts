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
  | 'user_update'
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
  | 'device_command_cancel'
  | 'device_config'
  | 'device_raw_send'
  | 'device_register'
  | 'device_bind'
  | 'device_unbind'
  | 'device_import'
  | 'device_ship'
  | 'user_command_create'
  | 'user_command_update'
  | 'user_command_delete'
  | 'config_template_create'
  | 'config_template_update'
  | 'config_template_delete'
  // hardware info and production (docs/production.md)
  | 'hw_value_create'
  | 'hw_value_update'
  | 'hw_value_delete'
  | 'hw_group_create'
  | 'hw_group_update'
  | 'hw_group_delete'
  | 'production_task_create'
  | 'production_task_update'
  | 'production_task_delete'
  | 'production_task_start'
  | 'production_task_finish'
  | 'production_task_cancel'
  | 'productive_group_create'
  | 'productive_group_update'
  | 'productive_group_delete'
  | 'productive_group_add'
  | 'productive_group_remove'
  // SIM cards, packages, orders, balance (docs/sim.md)
  | 'sim_provider_create'
  | 'sim_provider_update'
  | 'sim_provider_delete'
  | 'sim_provider_sync'
  | 'sim_card_create'
  | 'sim_card_update'
  | 'sim_card_delete'
  | 'sim_card_batch'
  | 'sim_usage_import'
  | 'package_create'
  | 'package_update'
  | 'package_delete'
  | 'order_create'
  | 'order_pay'
  | 'order_cancel'
  | 'order_refund'
  | 'order_complete'
  | 'balance_topup'
  | 'system_settings_update'
  | 'system_settings_test'
  | 'firmware_create'
  | 'firmware_update'
  | 'firmware_delete'
  | 'firmware_version_create'
  | 'firmware_version_update'
  | 'firmware_version_delete'
  | 'ota_task_create'
  | 'ota_task_start'
  | 'ota_task_pause'
  | 'ota_task_cancel'
  | 'ota_task_delete'
  // OTA engine (uid null): plan time reached, failure threshold reached, every device ended
  | 'ota_task_auto_start'
  | 'ota_task_auto_pause'
  | 'ota_task_done'
  // alerts (docs/alerts.md)
  | 'alert_trigger_create'
  | 'alert_trigger_update'
  | 'alert_trigger_delete'
  | 'alert_config_create'
  | 'alert_config_update'
  | 'alert_config_delete'
  | 'alert_contact_create'
  | 'alert_contact_update'
  | 'alert_contact_delete'
  | 'alert_contact_verify'
  | 'alert_ack'
  // sharing (docs/sharing.md)
  | 'share_create'
  | 'share_update'
  | 'share_revoke'
  | 'share_leave'
  | 'share_link_create'
  | 'share_link_revoke'
  | 'share_link_accept'
  // access keys (docs/open-api.md)
  | 'access_key_create'
  | 'access_key_update'
  | 'access_key_enable'
  | 'access_key_disable'
  | 'access_key_rotate'
  | 'access_key_verify'
  | 'access_key_delete'
  // applications (docs/applications.md)
  | 'application_create'
  | 'application_update'
  | 'application_delete'
  | 'application_version_create'
  | 'application_version_update'
  | 'application_version_delete'
  // command groups (docs/product-tooling.md)
  | 'thing_model_import'
  | 'product_feature_create'
  | 'product_feature_update'
  | 'product_feature_delete'
  | 'product_feature_assign'
  | 'command_group_create'
  | 'command_group_update'
  | 'command_group_delete'
  | 'group_command_create'
  | 'group_command_update'
  | 'group_command_delete';

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
