import type { InboxMessage } from '../inbox/inbox.service';

export type SimInboxParams =
  | { iccid: string; phone: string; expiry: string; days: number }
  | { iccid: string; phone: string; remaining_mb: number; percent: number };

/** The message-box entry of a SIM reminder, keyed as the reminder so a second pass writes none (docs/inbox.md). */
export function simMessage(r: {
  key: string;
  uid: number;
  template: 'sim_expiry' | 'sim_data_low';
  inbox: SimInboxParams;
}): InboxMessage {
  return {
    uid: r.uid,
    kind: r.template === 'sim_expiry' ? 'sim_expiring' : 'sim_data_low',
    params: r.inbox,
    target: { type: 'sim_card', key: r.inbox.iccid },
    dedupeKey: r.key,
  };
}
