import type { PropertyValue } from '@cellhub/contract/protocol';
import type { InboxMessage } from '../inbox/inbox.service';

/** The message-box entry of a raised alert, for the trigger's owner (docs/inbox.md). */
export function alertMessage(
  uid: number,
  alertId: number,
  triggerName: string,
  device: { sn: string; name: string },
  value: PropertyValue,
): InboxMessage {
  return {
    uid,
    kind: 'alert_raised',
    params: {
      alert_id: alertId,
      trigger_name: triggerName,
      sn: device.sn,
      device_name: device.name,
      value: String(value),
    },
    target: { type: 'alert', key: String(alertId) },
    dedupeKey: `alert:${alertId}`,
  };
}
