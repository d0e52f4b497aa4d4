import type { FastifyBaseLogger } from 'fastify';
import type { IPublishPacket, ISubscriptionMap, MqttClient } from 'mqtt';
import { parseTopic } from '@cellhub/contract/protocol';
import { type BrokerAdapter, type DeviceGateway } from './device-gateway';
import type { DeviceAuthData } from './device-auth';

/**
 * Every instance joins the same shared-subscription group, so the broker splits device traffic between them.
 * Separate deployments on one broker need separate groups (MQTT_SHARE_GROUP).
 */
export const sharedUplinkFilter = (group = 'cellhub') => `$share/${group}/dev/+/+/up/#`;
/**
 * One instance alone (MQTT_SUBSCRIPTION=plain): an ordinary subscription. Mosquitto 2.0 restores it with the
 * persistent session after its own restart and queues for it from its first moment up, where it restores the session
 * without a shared subscription and drops what devices publish until the server subscribes again.
 */
export const plainUplinkFilter = 'dev/+/+/up/#';

/** The filter an instance subscribes to. */
export function uplinkFilter(subscription: 'shared' | 'plain', shareGroup = 'cellhub'): string {
  return subscription === 'plain' ? plainUplinkFilter : sharedUplinkFilter(shareGroup);
}

/**
 * Uplinks handled at once and not yet acknowledged to the broker; beyond it the client stops reading (the broker
 * holds the rest). The broker's own limit (Mosquitto `max_inflight_messages`) usually bites first.
 */
export const MAX_UNACKED = 10_000;

/** MQTT 3.1.1 PUBACKs (fixed header 0x40, remaining length 2, packet id) for many packet ids in one buffer. */
export function pubackBytes(ids: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe(ids.length * 4);
  for (let i = 0; i < ids.length; i++) {
    buf[i * 4] = 0x40;
    buf[i * 4 + 1] = 2;
    buf.writeUInt16BE(ids[i]!, i * 4 + 2);
  }
  return buf;
}

/** The external adapter, with what a graceful stop needs of it. */
export interface ExternalAdapter extends BrokerAdapter {
  /**
   * Stops taking uplinks and resolves once those already taken are settled (stored, and their PUBACKs written).
   * What the broker delivers afterwards is left unacknowledged: it stays with the persistent session and comes
   * again when the instance is back. Called before the gateway closes, so a message arriving during a graceful
   * stop is not acknowledged by a closed writer's failure (which `uplink` counts and settles).
   */
  stopIntake(): Promise<void>;
}

/** Messages that arrived before the gateway attached, with mqtt.js's callbacks not called yet. */
const early = new WeakMap<MqttClient, [IPublishPacket, (error?: Error) => void][]>();

/**
 * Called right after the client is created, before it connects. A persistent session delivers what it holds right
 * after CONNACK, possibly before the gateway is attached (start-up still has database work to do); mqtt.js's
 * default handler would acknowledge those messages unread, and they would be lost. Here they wait, unacknowledged
 * (mqtt.js reads no further meanwhile), and `attachExternal` handles them first.
 */
export function holdUplinks(client: MqttClient): void {
  const held: [IPublishPacket, (error?: Error) => void][] = [];
  early.set(client, held);
  client.handleMessage = (packet, callback) => {
    held.push([packet, callback]);
  };
}

interface AckHooks {
  _sendPacket(packet: { cmd: string; messageId?: number }, cb?: () => void, ...rest: unknown[]): void;
  stream: NodeJS.WritableStream & { destroyed?: boolean };
}

/**
 * The gateway on an external broker (MQTT_URL). The server is one more client: a persistent session (clean: false,
 * fixed clientId) with a QoS 1 shared subscription (or a plain one for a lone instance, see `uplinkFilter`), so
 * messages that arrive while it restarts wait at the broker.
 *
 * Acknowledgement: the server acknowledges a QoS 1 uplink to the broker only once it is handled, for properties once
 * their batch committed, so "acknowledged to the broker" means "stored" and a crash loses nothing the broker does
 * not still hold (it redelivers to the persistent session: at least once). mqtt.js sends the PUBACK when
 * `handleMessage` calls back and reads the next packet only after that, which would serialise ingest on the
 * database; so `handleMessage` calls back at once, the PUBACK mqtt.js would send is held back, and the held
 * PUBACKs go out together after each commit. The broker's in-flight window (Mosquitto `max_inflight_messages`,
 * default 20) then bounds how many messages the server holds unacknowledged: set it high (docs/operations.md).
 * Device authentication and topic ACLs are the broker's job in this mode, fed by the server: EMQX's HTTP hooks and
 * Mosquitto dynamic-security provisioning (modules/broker-auth, docs/external-brokers.md).
 */
export function attachExternal(
  client: MqttClient,
  gateway: DeviceGateway,
  log: FastifyBaseLogger,
  filter = sharedUplinkFilter(),
): ExternalAdapter {
  const hooks = client as unknown as AckHooks;

  // Packet ids mean something only on the connection they arrived on: a PUBACK held across a reconnect must not
  // go out (the broker redelivers the message instead, and may reuse the id for another one).
  let connection = 0;
  /** Packet ids whose PUBACK mqtt.js is about to send and we hold instead. */
  const holding = new Set<number>();
  let ready: number[] = [];
  let writeScheduled = false;
  let unacked = 0;
  const waiting: (() => void)[] = [];
  let stopping = false;
  /** Uplinks taken and not settled yet. */
  const taken = new Set<Promise<void>>();

  const writeAcks = () => {
    writeScheduled = false;
    const ids = ready;
    ready = [];
    if (ids.length === 0 || !client.connected || hooks.stream.destroyed) return;
    hooks.stream.write(pubackBytes(ids));
  };
  const acknowledge = (id: number, on: number) => {
    unacked--;
    waiting.shift()?.();
    if (on !== connection) return;
    ready.push(id);
    if (!writeScheduled) {
      writeScheduled = true;
      // Every message of a batch settles in the same turn: one write for all of their PUBACKs.
      setImmediate(writeAcks);
    }
  };

  const sendPacket = hooks._sendPacket.bind(client);
  hooks._sendPacket = (packet, cb, ...rest) => {
    if (packet.cmd === 'puback' && packet.messageId !== undefined && holding.delete(packet.messageId)) {
      cb?.();
      return;
    }
    sendPacket(packet, cb, ...rest);
  };

  const subscribe = () => {
    // `resubscribe: true` makes mqtt.js send the SUBSCRIBE even though it remembers the filter from the previous
    // connection: without it mqtt.js skips it, trusting a Session Present 1, and a broker that restored the session
    // without the shared subscription (Mosquitto 2.0 after a restart with persistence) never delivers again.
    const topics: ISubscriptionMap = { [filter]: { qos: 1 } };
    topics.resubscribe = true;
    client.subscribe(topics, (err) => {
      if (err) log.error({ err: err.message }, 'external broker refused the uplink subscription');
    });
  };
  const newConnection = () => {
    connection++;
    holding.clear();
    ready = [];
  };
  // With a persistent session the broker keeps the subscription; subscribing again on every connect is harmless
  // and covers a broker that lost its state.
  client.on('connect', () => {
    newConnection();
    subscribe();
  });
  client.on('close', newConnection);
  if (client.connected) subscribe();

  const handle = (device: DeviceAuthData | undefined, kind: string, productKey: string, payload: Buffer) => {
    if (!device || device.productKey !== productKey) {
      log.debug({ productKey, kind }, 'uplink from an unknown device dropped');
      return Promise.resolve();
    }
    if (device.disabled) return Promise.resolve();
    const ref = { id: device.id, sn: device.sn, productKey: device.productKey, uid: device.uid };
    // The adapter stops its intake and waits for what it took before the gateway closes, so the gateway is never
    // stopping under a message taken here.
    return gateway.uplink(ref, kind, payload, { presenceFromStatus: true }).then(() => undefined);
  };

  client.handleMessage = (packet, callback) => {
    // Not read, not acknowledged, and mqtt.js reads no further: the broker keeps it for the session.
    if (stopping) return;
    const parsed = parseTopic(packet.topic);
    if (!parsed || parsed.direction !== 'up') return callback();
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    const cached = gateway.auth.peek(parsed.sn);
    const handled = cached
      ? handle(cached.data, parsed.kind, parsed.productKey, payload)
      : gateway.auth.get(parsed.sn).then((d) => handle(d, parsed.kind, parsed.productKey, payload));
    const settled = handled.catch((err: unknown) => log.error({ err }, 'external uplink failed'));
    taken.add(settled);
    void settled.then(() => taken.delete(settled));
    if (packet.qos !== 1 || packet.messageId === undefined) {
      // QoS 0 has nothing to acknowledge; QoS 2 keeps mqtt.js's own handshake (one at a time).
      if (packet.qos === 2) void settled.then(() => callback());
      else callback();
      return;
    }
    const id = packet.messageId;
    const on = connection;
    unacked++;
    void settled.then(() => acknowledge(id, on));
    holding.add(id);
    if (unacked < MAX_UNACKED) {
      callback();
      return;
    }
    // A pump of a connection that closed meanwhile stays stopped: its PUBACK would go out on the next one.
    waiting.push(() => {
      if (on === connection) callback();
    });
  };

  const waited = early.get(client) ?? [];
  early.delete(client);
  for (const [packet, callback] of waited) client.handleMessage(packet, callback);

  return {
    kind: 'external',
    async stopIntake() {
      stopping = true;
      await Promise.all([...taken]);
      // The PUBACKs of the last batch go out in the turn after it settled.
      await new Promise<void>((resolve) => setImmediate(resolve));
      writeAcks();
    },
    reachable: () => client.connected,
    kick: () => undefined,
    publish: async (topic, payload, qos) => {
      await client.publishAsync(topic, payload, { qos });
    },
  };
}
