import type {
  IConnackPacket,
  IConnectPacket,
  IPublishPacket,
  ISubackPacket,
  ISubscribePacket,
  IUnsubackPacket,
  Packet,
} from 'mqtt-packet';
import { MAX_PAYLOAD_BYTES } from '@cellhub/contract/protocol';

/**
 * Pure conversions between the MQTT 5.0 packets of a device and the 3.1.1 packets Aedes 1.2 understands. Whatever
 * 3.1.1 cannot carry (properties, subscription options, reason codes from the device) is dropped on the way in;
 * what 5.0 requires and 3.1.1 lacks (reason codes, per-topic UNSUBACK codes) is filled in on the way out.
 */

/** MQTT 5.0 reason codes used by the front. */
export const REASON = {
  success: 0x00,
  disconnectWithWill: 0x04,
  unspecifiedError: 0x80,
  malformedPacket: 0x81,
  protocolError: 0x82,
  unsupportedProtocolVersion: 0x84,
  clientIdentifierNotValid: 0x85,
  badUserNameOrPassword: 0x86,
  notAuthorized: 0x87,
  serverUnavailable: 0x88,
  badAuthenticationMethod: 0x8c,
  keepAliveTimeout: 0x8d,
  sessionTakenOver: 0x8e,
  serverShuttingDown: 0x8b,
  receiveMaximumExceeded: 0x93,
  topicAliasInvalid: 0x94,
  retainNotSupported: 0x9a,
  sharedSubscriptionsNotSupported: 0x9e,
  subscriptionIdentifiersNotSupported: 0xa1,
} as const;

/** 3.1.1 CONNACK return codes (index) to 5.0 reason codes. Aedes' own code 6 (keep-alive limit) has no 5.0 twin. */
const CONNACK_REASON: readonly number[] = [
  REASON.success,
  REASON.unsupportedProtocolVersion,
  REASON.clientIdentifierNotValid,
  REASON.serverUnavailable,
  REASON.badUserNameOrPassword,
  REASON.notAuthorized,
];

/** Topic aliases a device may define (CONNACK Topic Alias Maximum): one per up kind and some to spare. */
export const TOPIC_ALIAS_MAXIMUM = 32;

/** The largest packet a device may send: the payload limit the gateway enforces (256 KB) bounds the packet. */
export const MAXIMUM_PACKET_SIZE = MAX_PAYLOAD_BYTES;

/**
 * Properties of every successful CONNACK: what this server does and does not offer a 5.0 client. A device that
 * uses what is announced as unavailable anyway is disconnected with the reason code the standard names (a retained
 * PUBLISH 0x9A, a shared subscription 0x9E, a subscription identifier 0xA1). Retained messages are not offered:
 * the gateway clears the retain flag of every uplink and sends downlinks unretained, so nothing is ever retained.
 */
export const CONNACK_PROPERTIES: NonNullable<IConnackPacket['properties']> = {
  topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
  retainAvailable: false,
  maximumPacketSize: MAXIMUM_PACKET_SIZE,
  subscriptionIdentifiersAvailable: false,
  sharedSubscriptionAvailable: false,
};

export function connackReason(returnCode: number | undefined): number {
  return CONNACK_REASON[returnCode ?? 0] ?? REASON.unspecifiedError;
}

/**
 * 5.0 CONNECT -> 3.1.1. In 5.0 Clean Start (discard the session at the start) and the Session Expiry Interval (keep
 * it after the end, 0 by default) are separate; 3.1.1 has one clean flag for both.
 *
 * With the broker's sessions (`sessions`, broker-sessions.ts), which keep and end sessions after the connection by
 * their expiry, the clean flag is Clean Start. Without them (a bare Aedes), only a session kept at both ends
 * (Clean Start 0, expiry > 0) is a persistent 3.1.1 session, and Clean Start 1 with an expiry maps to a clean one.
 */
export function connectToV4(p: IConnectPacket, sessions = false): IConnectPacket {
  const expiry = p.properties?.sessionExpiryInterval ?? 0;
  const out: IConnectPacket = {
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 4,
    clean: sessions ? p.clean !== false : p.clean !== false || expiry === 0,
    keepalive: p.keepalive ?? 0,
    clientId: p.clientId,
  };
  if (p.username !== undefined) out.username = p.username;
  if (p.password !== undefined) out.password = p.password;
  // Will properties (delay, expiry, content type ...) are dropped: the will goes out at once, as in 3.1.1.
  if (p.will)
    out.will = {
      topic: p.will.topic,
      payload: p.will.payload,
      qos: p.will.qos ?? 0,
      retain: !!p.will.retain,
    };
  return out;
}

/**
 * `receiveMaximum`: the QoS 1 and 2 messages the device may have in flight towards the server. Aedes closes a
 * connection with more than its `maxInflightInbound` QoS 2 messages awaiting PUBREL; a 5.0 client told this
 * number stays below it.
 */
export function connackToV5(p: IConnackPacket, receiveMaximum?: number): IConnackPacket {
  const reasonCode = connackReason(p.returnCode);
  const out: IConnackPacket = {
    cmd: 'connack',
    sessionPresent: reasonCode === 0 && p.sessionPresent,
    reasonCode,
  };
  if (reasonCode === 0) {
    out.properties =
      receiveMaximum && receiveMaximum < 65_535
        ? { ...CONNACK_PROPERTIES, receiveMaximum }
        : CONNACK_PROPERTIES;
  }
  return out;
}

/** The topic aliases one device connection defined (client to server direction only). */
export class TopicAliases {
  private readonly topics = new Map<number, string>();

  /**
   * The topic of a PUBLISH, registering or resolving its alias. A number is the reason code to disconnect with:
   * an alias out of range or one never defined, or neither topic nor alias.
   */
  resolve(p: IPublishPacket): string | number {
    const alias = p.properties?.topicAlias;
    const topic = typeof p.topic === 'string' ? p.topic : String(p.topic);
    if (alias === undefined) return topic.length > 0 ? topic : REASON.protocolError;
    if (!Number.isInteger(alias) || alias < 1 || alias > TOPIC_ALIAS_MAXIMUM) return REASON.topicAliasInvalid;
    if (topic.length > 0) {
      this.topics.set(alias, topic);
      return topic;
    }
    return this.topics.get(alias) ?? REASON.topicAliasInvalid;
  }
}

/** Payload format, content type, user properties, response topic and correlation data do not reach Aedes. */
export function publishToV4(p: IPublishPacket, topic: string): IPublishPacket {
  const out: IPublishPacket = {
    cmd: 'publish',
    topic,
    payload: p.payload,
    qos: p.qos,
    retain: p.retain,
    dup: p.dup,
  };
  if (p.qos > 0) out.messageId = p.messageId;
  return out;
}

export function publishToV5(p: IPublishPacket): IPublishPacket {
  const out: IPublishPacket = {
    cmd: 'publish',
    topic: p.topic,
    payload: p.payload,
    qos: p.qos,
    retain: p.retain,
    dup: p.dup,
  };
  if (p.qos > 0) out.messageId = p.messageId;
  return out;
}

type Ack = 'puback' | 'pubrec' | 'pubrel' | 'pubcomp';

/** A device's acknowledgement: its reason code (e.g. "no matching subscribers") means nothing to 3.1.1. */
export function ackToV4(cmd: Ack, messageId: number | undefined): Packet {
  return { cmd, messageId } as Packet;
}

/** Aedes acknowledged, so the 5.0 acknowledgement says success. */
export function ackToV5(cmd: Ack, messageId: number | undefined): Packet {
  return { cmd, messageId, reasonCode: REASON.success } as Packet;
}

/**
 * Why a 5.0 SUBSCRIBE must close the connection, if it must: CONNACK says Subscription Identifiers and Shared
 * Subscriptions are not available, and using them anyway is a protocol error with its own reason code (MQTT 5.0
 * 3.2.2.3.12, 3.2.2.3.13).
 */
export function subscribeRefusal(p: ISubscribePacket): number | undefined {
  if (p.properties?.subscriptionIdentifier !== undefined) return REASON.subscriptionIdentifiersNotSupported;
  if (p.subscriptions.some((s) => s.topic.startsWith('$share/')))
    return REASON.sharedSubscriptionsNotSupported;
  return undefined;
}

/** No Local, Retain As Published and Retain Handling are dropped; QoS is kept. */
export function subscribeToV4(p: ISubscribePacket): ISubscribePacket {
  return {
    cmd: 'subscribe',
    messageId: p.messageId,
    subscriptions: p.subscriptions.map((s) => ({ topic: s.topic, qos: s.qos })),
  };
}

/** 3.1.1 failure 128 -> 0x87 "not authorized" (the only reason the gateway refuses a filter); granted QoS stays. */
export function subackToV5(p: ISubackPacket): ISubackPacket {
  return {
    cmd: 'suback',
    messageId: p.messageId,
    granted: (p.granted as number[]).map((g) => (g === 0x80 ? REASON.notAuthorized : g)),
  };
}

/** 3.1.1 UNSUBACK has no payload; 5.0 needs one reason code per topic filter of the UNSUBSCRIBE. */
export function unsubackToV5(messageId: number | undefined, filters: number): IUnsubackPacket {
  return {
    cmd: 'unsuback',
    messageId,
    granted: new Array<number>(Math.max(filters, 1)).fill(REASON.success),
  };
}

/** The properties a device may put on each packet after its CONNECT (MQTT 5.0 3.3.2.3, 3.4-3.7, 3.8.2.1, 3.10.2.1, 3.14.2.2, 3.15.2.2). */
const DEVICE_PROPERTIES: Partial<Record<Packet['cmd'], ReadonlySet<string>>> = {
  publish: new Set([
    'payloadFormatIndicator',
    'messageExpiryInterval',
    'contentType',
    'responseTopic',
    'correlationData',
    'topicAlias',
    'userProperties',
  ]),
  puback: new Set(['reasonString', 'userProperties']),
  pubrec: new Set(['reasonString', 'userProperties']),
  pubrel: new Set(['reasonString', 'userProperties']),
  pubcomp: new Set(['reasonString', 'userProperties']),
  subscribe: new Set(['subscriptionIdentifier', 'userProperties']),
  unsubscribe: new Set(['userProperties']),
  disconnect: new Set(['sessionExpiryInterval', 'reasonString', 'userProperties']),
  auth: new Set(['authenticationMethod', 'authenticationData', 'reasonString', 'userProperties']),
};

const unreadable = (text: string) => text.includes('\u0000') || text.includes('\ufffd');

/**
 * Why a device's 5.0 packet (after its CONNECT, which connect-check.ts read byte by byte) must close the connection,
 * as far as its parsed properties show it: a property that packet does not carry, one given twice (the parser makes
 * an array of a repeated property, MQTT 5.0 2.2.2.2 makes it a Protocol Error) or a string with U+0000 or bytes that
 * were not UTF-8 (the parser decodes them to U+FFFD; Malformed Packet, MQTT-1.5.4-1, -2). The parser reads a
 * one-byte flag (payload format indicator) as a boolean, so a value of 2 cannot be told from 1 here.
 */
export function propertyFault(p: Packet): number | undefined {
  const props = (p as { properties?: Record<string, unknown> }).properties;
  if (!props) return undefined;
  const allowed = DEVICE_PROPERTIES[p.cmd];
  for (const [name, value] of Object.entries(props)) {
    if (!allowed?.has(name)) return REASON.protocolError;
    if (Array.isArray(value)) return REASON.protocolError;
    if (typeof value === 'string' && unreadable(value)) return REASON.malformedPacket;
    if (name === 'userProperties' && value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (
          unreadable(k) ||
          (Array.isArray(v) ? v : [v]).some((x) => typeof x === 'string' && unreadable(x))
        ) {
          return REASON.malformedPacket;
        }
      }
    }
  }
  return undefined;
}
