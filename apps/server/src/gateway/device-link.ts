import type { DownKind } from '@cellhub/contract/protocol';
import { AppError } from '../lib/app-error';

/**
 * What services need from the gateway: send a downlink, drop a device's connection, forget cached credentials.
 * deps.link is the DeviceGateway from the start (app.ts); `offlineLink` serves scripts and tests without one.
 */
export interface DeviceLink {
  /** Resolves once the broker has taken the message (QoS 1). Rejects with 20401 when it cannot be delivered. */
  send(productKey: string, sn: string, kind: DownKind, payload: unknown): Promise<void>;
  /**
   * Whether the device is online this moment, for a service about to send it something: the live connection state,
   * which is ahead of the row's `online` flag (written in batches). `stored` is that flag, as the caller read it.
   */
  online(sn: string, stored: number): boolean;
  /** Closes the device's connection on this instance, if any (disabled, deleted, secret changed). */
  kick(sn: string, reason: string): void;
  /**
   * Forgets cached auth data of the device: call it after every committed change of what authenticates it (created,
   * secret, disabled, owner, deleted). The gateway also raises `device.auth.changed` for brokers holding credentials.
   */
  invalidate(sn: string): void;
}

export const offlineLink: DeviceLink = {
  send: () => Promise.reject(new AppError(20401)),
  online: () => false,
  kick: () => undefined,
  invalidate: () => undefined,
};
