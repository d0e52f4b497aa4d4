import type zhCN from './zh-CN';

const enUS: Record<keyof typeof zhCN, string> = {
  'inbox.tab.alert': 'Alerts',
  'inbox.tab.ota': 'OTA',
  'inbox.tab.sim': 'SIM',
  'inbox.empty.alert': 'No alert messages',
  'inbox.empty.ota': 'No OTA messages',
  'inbox.empty.sim': 'No SIM reminders',
  'inbox.error': 'Could not load messages',
  'inbox.retry': 'Retry',
  'inbox.more': 'Load more',
  'inbox.markRead': 'Mark read',
  'inbox.allRead': 'Mark all as read',
  'inbox.allRead.done': '{n} messages marked read',
  'inbox.unread': 'Unread',
  'inbox.alert_raised.title': 'Alert: {trigger_name}',
  'inbox.alert_raised.body': 'Device {device} raised it with value {value}',
  'inbox.ota_finished.title': 'OTA task "{task_name}" finished',
  'inbox.ota_finished.body': '{succeeded} succeeded, {failed} failed, {skipped} skipped',
  'inbox.ota_finished.window': ' (its time window ended)',
  'inbox.sim_expiring.title': 'SIM {iccid} expires within {days} days',
  'inbox.sim_expiring.body': 'Its package expires at {expiry}; renew it in time',
  'inbox.sim_data_low.title': 'SIM {iccid} is under {percent}% of its data',
  'inbox.sim_data_low.body': '{remaining} MB left; renew or change the package',
};
export default enUS;
