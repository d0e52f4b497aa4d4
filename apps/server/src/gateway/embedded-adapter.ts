import type { Aedes, AuthenticateError, Client } from 'aedes';
import { DOWN_KINDS, topicPrefix } from '@cellhub/contract/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { DeviceRef } from '../modules/devices/device-ref';
import { Rejection } from '../lib/rejection';
import { BrokerSessions, SESSION_MARKER } from './broker-sessions';
import type { BrokerAdapter, DeviceGateway } from './device-gateway';
import { mayPublish, maySubscribe } from './topic-acl';

interface Session {
  device: DeviceRef;
  /** Set when something other than the connection itself ended it (takeover, keep-alive, disabled ...). */
  reason?: string;
  takenOver?: boolean;
  hasWill?: boolean;
}

const early = new WeakMap<Aedes, Parameters<Aedes['authenticate']>[]>();

/**
 * The broker's authenticate until the gateway is attached: the CONNECT waits for its answer. Refusing it ("not
 * authorized") would tell a valid device it is not allowed, and many DTUs, like mqtt.js, stop retrying after that.
 */
export function holdConnects(aedes: Aedes): void {
  const held: Parameters<Aedes['authenticate']>[] = [];
  early.set(aedes, held);
  aedes.authenticate = (...args) => {
    held.push(args);
  };
}

/** Installs the real authenticate; CONNECTs held until now (`holdConnects`) get their answer from it. */
export function releaseConnects(aedes: Aedes, authenticate: Aedes['authenticate']): void {
  aedes.authenticate = authenticate;
  for (const args of early.get(aedes)?.splice(0) ?? []) authenticate(...args);
  early.delete(aedes);
}

/** The CONNECT's keep-alive in seconds (0: none): Aedes keeps only its timer, 1.5 x that in ms, plus 1. */
function keepaliveOf(client: Client): number {
  const interval = (client as unknown as { _keepaliveInterval?: number })._keepaliveInterval ?? -1;
  return interval > 0 ? Math.round((interval - 1) / 1500) : 0;
}

/**
 * Why a topic (name or filter) read from a device's packet must close its connection: U+0000 (MQTT-1.5.3-2), or
 * bytes that were not UTF-8 (MQTT-1.5.3-1), which the MQTT parser decodes to U+FFFD. Every device topic is ASCII
 * (docs/device-protocol.md), so a U+FFFD that was sent as such names no topic either.
 */
function unreadableTopic(topic: string): string | undefined {
  if (topic.includes('\u0000')) return 'contains U+0000';
  if (topic.includes('\ufffd')) return 'is not valid UTF-8';
  return undefined;
}

function remoteIp(client: Client): string {
  const fromReq = client.req?.socket?.remoteAddress;
  if (fromReq) return fromReq;
  const conn = client.conn as { remoteAddress?: string };
  return conn.remoteAddress ?? '';
}

/**
 * Device authentication, topic ACL, limits and routing on the embedded Aedes broker.
 *
 * Acknowledgement: Aedes sends the PUBACK of a QoS 1 publish only after `authorizePublish` calls back, and the
 * gateway calls back only when the message has been handled; for property messages that is after the batch holding
 * its rows committed. So on the embedded broker a PUBACK means "stored". The PUBREC of a QoS 2 publish likewise.
 *
 * Exactly once: Aedes asks `authorizePublish` before it looks at its QoS 2 store, so each copy of a QoS 2 PUBLISH
 * a device resends (DUP, or after reconnecting to its session) would reach the gateway again. The broker's
 * sessions (broker-sessions.ts) hand the gateway the first copy only, until the PUBREL releases the packet id;
 * every copy still gets its PUBREC.
 */
export function attachEmbedded(aedes: Aedes, gateway: DeviceGateway, log: FastifyBaseLogger): BrokerAdapter {
  const sessions = new WeakMap<Client, Session>();
  const brokerSessions = BrokerSessions.of(aedes);

  const authenticate: Aedes['authenticate'] = (client, username, password, done) => {
    gateway.opened
      .then(() => gateway.auth.authenticate(client.id, username, password))
      .then((result) => {
        if (!result.ok) {
          const err = new Error(result.reason) as AuthenticateError;
          err.returnCode = result.returnCode;
          if (result.returnCode !== 2) {
            void gateway.auth.get(username ?? '').then((d) => {
              if (d) gateway.reject(d, 'connect', new Rejection(`connect refused: ${result.reason}`, 10108));
            });
          }
          done(err, false);
          return;
        }
        const { id, sn, productKey, uid } = result.device;
        const previous = (aedes as unknown as { clients: Record<string, Client | undefined> }).clients[sn];
        if (previous) {
          const s = sessions.get(previous);
          if (s) {
            s.takenOver = true;
            s.reason = 'takeover';
          }
        }
        sessions.set(client, { device: { id, sn, productKey, uid } });
        brokerSessions?.claim(client);
        done(null, true);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'device authentication failed');
        const e = new Error('server unavailable') as AuthenticateError;
        e.returnCode = 3;
        done(e, false);
      });
  };
  releaseConnects(aedes, authenticate);

  const drop = (packet: { topic: string; retain: boolean }, client: Client) => {
    // Nobody can subscribe to `$` topics here: the message goes nowhere, and the connection stays up.
    packet.topic = `$drop/${client.id}`;
    packet.retain = false;
  };

  aedes.authorizePublish = (client, packet, callback) => {
    const session = client ? sessions.get(client) : undefined;
    if (!client || !session) {
      callback(new Error('not authenticated'));
      return;
    }
    const { device } = session;
    const bad = unreadableTopic(packet.topic);
    if (bad) {
      // An error closes the connection (no PUBACK): the standard's answer to a malformed packet.
      gateway.reject(device, 'acl', new Rejection(`publish topic ${bad}`, 10108));
      callback(new Error(`publish topic ${bad}`));
      return;
    }
    const parsed = mayPublish(device, packet.topic);
    const will = packet === (client as unknown as { will?: unknown }).will;
    // Every copy of a message is rewritten alike (a resent copy may reach Aedes' store too); only the first is
    // handled.
    let handle: () => Promise<void>;
    if (!parsed) {
      const topic = packet.topic;
      drop(packet, client);
      handle = async () =>
        gateway.reject(
          device,
          'acl',
          new Rejection(`publish to "${topic.slice(0, 200)}" is not allowed`, 10108),
        );
    } else if (will && parsed.kind === 'status') {
      // Connection events decide presence here; the will's {"online":0} would only repeat the disconnect.
      drop(packet, client);
      handle = () => Promise.resolve();
    } else {
      packet.retain = false;
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      handle = () =>
        gateway.uplink(device, parsed.kind, payload, { will }).then(
          (taken) => {
            if (!taken) unstored = true;
          },
          () => undefined,
        );
    }
    // The gateway stopping (a graceful stop: it closes before the broker) did not store it: an error closes the
    // connection without a PUBACK, and the device sends the message again after it reconnects.
    let unstored = false;
    const handled =
      packet.qos === 2 && !will && packet.messageId !== undefined && brokerSessions
        ? brokerSessions.once(client.id, packet.messageId, handle)
        : handle();
    void handled.then(() => callback(unstored ? new Error('server stopping: not stored') : null));
  };

  aedes.authorizeSubscribe = (client, sub, callback) => {
    const session = client ? sessions.get(client) : undefined;
    // Restoring a kept session without subscriptions (broker-sessions.ts): nothing to subscribe, nothing refused.
    if (!session || sub.topic === SESSION_MARKER) {
      callback(null, null);
      return;
    }
    const bad = unreadableTopic(sub.topic);
    if (bad) {
      gateway.reject(session.device, 'acl', new Rejection(`subscribe topic ${bad}`, 10108));
      callback(new Error(`subscribe topic ${bad}`));
      return;
    }
    if (!maySubscribe(session.device, sub.topic)) {
      gateway.reject(
        session.device,
        'acl',
        new Rejection(`subscribe to "${sub.topic.slice(0, 200)}" is not allowed`, 10108),
      );
      // A null subscription is answered with the failure return code 128.
      callback(null, null);
      return;
    }
    callback(null, sub);
  };

  aedes.on('client', (client) => {
    const session = sessions.get(client);
    if (!session) return;
    session.hasWill = Boolean((client as unknown as { will?: unknown }).will);
    void gateway.connected(session.device, {
      ip: remoteIp(client),
      protocol: `mqtt/${client.version}${client.req ? '+ws' : ''}`,
      keepalive: keepaliveOf(client),
      // What the gateway asks: must what it sends wait for a subscription? It must for a clean session, and for a
      // kept one that restored no subscription (broker-sessions.ts): sent now, it would reach nobody.
      clean:
        client.clean ||
        Object.keys((client as unknown as { subscriptions: object }).subscriptions).length === 0,
    });
  });

  aedes.on('subscribe', (subscriptions, client) => {
    const session = client ? sessions.get(client) : undefined;
    if (!session) return;
    const prefix = `${topicPrefix(session.device.productKey, session.device.sn)}/down/`;
    const granted = subscriptions.filter((s) => (s.qos as number) !== 128 && s.topic.startsWith(prefix));
    const rests = granted.map((s) => s.topic.slice(prefix.length));
    const kinds = DOWN_KINDS.filter((k) => rests.some((r) => r === '#' || r === '+' || r === k));
    if (kinds.length > 0) void gateway.subscribed(session.device, kinds);
  });

  aedes.on('keepaliveTimeout', (client) => {
    const session = sessions.get(client);
    if (session && !session.reason) session.reason = 'keep-alive timeout';
  });

  aedes.on('clientDisconnect', (client) => {
    const session = sessions.get(client);
    if (!session) return;
    const c = client as unknown as { _disconnected?: boolean };
    const reason =
      session.reason ?? (c._disconnected ? 'client close' : session.hasWill ? 'will' : 'connection lost');
    void gateway.disconnected(session.device, reason, !session.takenOver);
  });

  const clients = () => (aedes as unknown as { clients: Record<string, Client | undefined> }).clients;

  return {
    kind: 'embedded',
    reachable: (sn) => clients()[sn]?.connected === true,
    kick(sn, reason) {
      const client = clients()[sn];
      if (!client) return;
      const session = sessions.get(client);
      if (session) session.reason = reason;
      // Taken over by a device host's connection (modules/device-hosts): the device stays online.
      if (session && reason === 'takeover') session.takenOver = true;
      client.close();
    },
    publish: (topic, payload, qos) =>
      new Promise<void>((resolve, reject) => {
        aedes.publish({ cmd: 'publish', topic, payload, qos, retain: false, dup: false }, (err) =>
          err ? reject(err) : resolve(),
        );
      }),
  };
}
