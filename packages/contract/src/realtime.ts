/**
 * Live updates: the device events the server pushes to the console over the WebSocket at /api/ws, and the messages
 * both sides exchange on it. docs/api-conventions.md ("Live updates") describes the protocol.
 */
import { z } from 'zod';
import { text } from './text';
import { dataTransmitEvent } from './data-transmit';
import { OTA_PAUSE_REASONS, otaTaskCounts, otaTaskStatus } from './ota';

const sn = text().min(1).max(64);
const productKey = text().min(1).max(64);
const isoTime = text().min(1);

export const deviceOnlineEvent = z.object({
  type: z.literal('device.online'),
  sn,
  product_key: productKey,
  online: z.union([z.literal(0), z.literal(1)]),
  at: isoTime,
  /** Why it went offline (keep-alive timeout, will, takeover, ...) or came online. */
  reason: text().optional(),
});

export const propertyValue = z.union([z.number(), text(), z.boolean()]);

export const devicePropertiesEvent = z.object({
  type: z.literal('device.properties'),
  sn,
  product_key: productKey,
  /** Device time of the newest value in `values`. */
  ts: isoTime,
  /** Latest value per property identifier; a burst of reports is merged into one event. */
  values: z.record(text(), propertyValue),
});

export const deviceInfoEvent = z.object({
  type: z.literal('device.info'),
  sn,
  product_key: productKey,
  fields: z.record(text(), z.unknown()),
});

export const commandStatus = z.enum([
  'pending',
  'sent',
  'replied',
  'timeout',
  'failed',
  'expired',
  'cancelled',
]);

export const deviceCommandEvent = z.object({
  type: z.literal('device.command'),
  sn,
  product_key: productKey,
  id: z.union([text(), z.number()]),
  status: commandStatus,
  code: z.number().int().optional(),
  data: text().optional(),
});

export const deviceConfigEvent = z.object({
  type: z.literal('device.config'),
  sn,
  product_key: productKey,
  config_version: z.number().int(),
  expect_config_version: z.number().int(),
  config_version_different: z.boolean(),
});

/** The device reported an event of its thing model (`P/up/event`), after it was stored. */
export const deviceEventOccurred = z.object({
  type: z.literal('device.event'),
  sn,
  product_key: productKey,
  /** The stored occurrence's id (`GET /api/devices/:sn/events`). */
  id: z.number().int(),
  event: text(),
  level: z.enum(['info', 'warn', 'error']),
  params: z.record(text(), z.union([z.number(), text(), z.boolean()])),
  /** Device time (or server time when the device sent none). */
  ts: isoTime,
});

export const deviceEvent = z.discriminatedUnion('type', [
  deviceOnlineEvent,
  devicePropertiesEvent,
  deviceInfoEvent,
  deviceCommandEvent,
  deviceConfigEvent,
  deviceEventOccurred,
]);
export type DeviceEvent = z.infer<typeof deviceEvent>;
export type DeviceEventType = DeviceEvent['type'];
export type DeviceOnlineEvent = z.infer<typeof deviceOnlineEvent>;
export type DevicePropertiesEvent = z.infer<typeof devicePropertiesEvent>;
export type DeviceInfoEvent = z.infer<typeof deviceInfoEvent>;
export type DeviceCommandEvent = z.infer<typeof deviceCommandEvent>;
export type DeviceConfigEvent = z.infer<typeof deviceConfigEvent>;
export type DeviceEventOccurred = z.infer<typeof deviceEventOccurred>;

/** At most this many serial numbers in one subscribe filter. */
export const MAX_FILTER_SNS = 1000;

// Client -> server

/** First message on every socket, within AUTH_TIMEOUT_MS, with the token from sign-in. */
export const wsAuthMessage = z.object({ type: z.literal('auth'), token: text().min(1).max(512) });

/**
 * Which devices to receive: `sns` limits the stream to those serial numbers, `null` (the default after auth) means
 * every device the user may see. Each subscribe replaces the previous filter.
 */
export const wsSubscribeMessage = z.object({
  type: z.literal('subscribe'),
  sns: z.array(sn).max(MAX_FILTER_SNS).nullable(),
});

export const wsPingMessage = z.object({ type: z.literal('ping'), id: z.number().int().optional() });

export const wsClientMessage = z.discriminatedUnion('type', [
  wsAuthMessage,
  wsSubscribeMessage,
  wsPingMessage,
]);
export type WsClientMessage = z.infer<typeof wsClientMessage>;
export type WsAuthMessage = z.infer<typeof wsAuthMessage>;
export type WsSubscribeMessage = z.infer<typeof wsSubscribeMessage>;

// Server -> client

/** Sent once the token is accepted; events flow from here on. */
export const wsReadyMessage = z.object({ type: z.literal('ready'), uid: z.number().int() });
/** Answer to a client ping (also the client's way to detect a dead connection). */
export const wsPongMessage = z.object({ type: z.literal('pong'), id: z.number().int().optional() });
/** Confirms a subscribe with the filter now in force. */
export const wsSubscribedMessage = z.object({
  type: z.literal('subscribed'),
  sns: z.array(text()).nullable(),
});
export const wsEventMessage = z.object({ type: z.literal('event'), event: deviceEvent });
/**
 * OTA task progress, sent to the task's owner and to admins as its own server message (not inside `event`: it
 * belongs to a task, not a device, and no device filter applies). Changes of one task are merged: at most a few
 * messages per second per task, each carrying the latest counts.
 */
export const otaTaskEvent = otaTaskCounts.extend({
  type: z.literal('ota.task'),
  /** The task id. */
  id: z.number().int(),
  product_key: productKey,
  status: otaTaskStatus,
  pause_reason: z.enum(OTA_PAUSE_REASONS).nullable(),
  /** Set once, when the task was deleted (the console drops it from its lists). */
  deleted: z.boolean().optional(),
  at: isoTime,
});
export type OtaTaskEvent = z.infer<typeof otaTaskEvent>;

/**
 * Messages about something a user owns rather than a device (an OTA task, a data transmission rule's counters): sent
 * to the owner and to admins, whatever device filter the socket has.
 */
export const ownerEvent = z.discriminatedUnion('type', [otaTaskEvent, dataTransmitEvent]);
export type OwnerEvent = z.infer<typeof ownerEvent>;

/**
 * Who may see these subscribed devices changed (a share was made, changed or ended): re-read them. Sent only to a
 * socket whose filter names them; a device the caller may no longer see then answers 10117.
 */
export const wsAccessMessage = z.object({ type: z.literal('access'), sns: z.array(text()) });

/** A refused message; codes come from the contract's error table (10113 bad message, 10102 not signed in). */
export const wsErrorMessage = z.object({
  type: z.literal('error'),
  code: z.number().int(),
  message: text(),
});

export const wsServerMessage = z.discriminatedUnion('type', [
  wsReadyMessage,
  wsPongMessage,
  wsSubscribedMessage,
  wsEventMessage,
  wsErrorMessage,
  otaTaskEvent,
  dataTransmitEvent,
  wsAccessMessage,
]);
export type WsServerMessage = z.infer<typeof wsServerMessage>;
export type WsEventMessage = z.infer<typeof wsEventMessage>;

/** The client has this long after the upgrade to send `auth`. */
export const WS_AUTH_TIMEOUT_MS = 5000;

/**
 * WebSocket close codes (4000-4999 are the application's). A client reconnects after any of them except 4401 and
 * 4403, which need a new sign-in.
 */
export const WS_CLOSE = {
  /** Normal shutdown of the server; reconnect. */
  goingAway: 1001,
  /** No valid `auth` in time, or a bad token. */
  unauthorized: 4401,
  /** The session was revoked (sign-out, password change, account disabled) while the socket was open. */
  revoked: 4403,
  /** A binary frame or a message over 128 KB. */
  badMessage: 4400,
} as const;
