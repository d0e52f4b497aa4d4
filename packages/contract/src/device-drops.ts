/**
 * Messages the gateway dropped for a device, by reason (docs/device-protocol.md, "Publishing and subscribing").
 * The total is the device's `rejected_count`.
 */
import { z } from 'zod';
import { text } from './text';

/**
 * Why a message was dropped. The reply code a device gets on `P/down/property_reply` (property messages with an
 * `id`) is in brackets.
 */
export const DROP_REASONS = [
  /** Over the per-device message rate (10104). */
  'rate_limit',
  /** Payload above 256 KB (50001). */
  'too_large',
  /** Not JSON (40003). */
  'not_json',
  /** Does not match the schema of its kind, or an unknown kind (10113). */
  'invalid',
  /** A property the product does not define, or of the wrong type (70003). */
  'unknown_property',
  /** A command reply or upgrade report naming an id the platform does not know (10107). */
  'unknown_id',
  /** A publish or subscription outside the device's own topics (10108). */
  'not_allowed',
  /** A connection attempt of the device was refused (wrong secret, disabled ...). */
  'connect_refused',
  /** The server could not handle it (10101, 10105). */
  'server_error',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export const deviceDropItem = z.object({
  reason: z.enum(DROP_REASONS),
  count: z.number().int(),
  /** When the last one of this reason was dropped. */
  last_at: text(),
});
export type DeviceDropItem = z.infer<typeof deviceDropItem>;

/** GET /api/devices/:sn/drops: the breakdown, most frequent reason first. */
export const deviceDrops = z.object({
  total: z.number().int(),
  reasons: z.array(deviceDropItem),
});
export type DeviceDrops = z.infer<typeof deviceDrops>;
