import type { Deps } from '../../lib/deps';
import type { DeliveryRow } from './notify.table';

/**
 * What the channel adapters and their dispatcher (notify.channels.ts) share. A leaf: the adapters import it, and
 * notify.channels.ts imports the adapters, so none of them imports another back.
 */

/** What a send needs of the running server. */
export type ChannelDeps = Pick<Deps, 'db' | 'box' | 'config' | 'log' | 'now'>;

export interface DeliveryResult {
  providerMessageId?: string;
}

/** What an adapter sends: a delivery row's message, with a stable reference for the provider's own records. */
export interface OutgoingMessage {
  to: string;
  template: DeliveryRow['template'];
  subject: string | null;
  body: string;
  params: Record<string, string>;
  /** `cellhub-<delivery id>`: Aliyun OutId, Tencent SessionContext, the email's Message-ID left part. */
  reference: string;
}
