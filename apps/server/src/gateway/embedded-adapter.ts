import type { Aedes, AuthenticateError, Client } from 'aedes';
import { DOWN_KINDS, parseTopic, topicPrefix } from '@cellhub/contract/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { DeviceRef } from '../modules/devices/device-ref';
import { Rejection } from '../lib/rejection';
import type { BrokerAdapter, DeviceGateway } from './device-gateway';

interface Session {
  device: DeviceRef;
  /** Set when something other than the connection itself ended it (takeover, keep-alive, disabled ...). */
  reason?: string;
  takenOver?: boolean;
  hasWill?: boolean;
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
 * its rows committed. So on the embedded broker a PUBACK means "stored".
 */
export function attachEmbedded(aedes: Aedes, gateway: DeviceGateway, log: FastifyBaseLogger): BrokerAdapter {
  const sessions = new WeakMap<Client, Session>();

  aedes.authenticate = (client, username, password, done) => {
    gateway.auth
      .authenticate(client.id, username, password)
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
        done(null, true);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'device authentication failed');
        const e = new Error('server unavailable') as AuthenticateError;
        e.returnCode = 3;
        done(e, false);
      });
  };

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
    const parsed = parseTopic(packet.topic);
    const own = parsed && parsed.productKey === device.productKey && parsed.sn === device.sn;
    if (!own || parsed.direction !== 'up') {
      drop(packet, client);
      gateway.reject(
        device,
        'acl',
        new Rejection(`publish to "${packet.topic.slice(0, 200)}" is not allowed`, 10108),
      );
      callback(null);
      return;
    }
    const will = packet === (client as unknown as { will?: unknown }).will;
    // Connection events decide presence here; the will's {"online":0} would only repeat the disconnect.
    if (will && parsed.kind === 'status') {
      drop(packet, client);
      callback(null);
      return;
    }
    packet.retain = false;
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    gateway.uplink(device, parsed.kind, payload, { will }).then(
      () => callback(null),
      () => callback(null),
    );
  };

  aedes.authorizeSubscribe = (client, sub, callback) => {
    const session = client ? sessions.get(client) : undefined;
    if (!session) {
      callback(null, null);
      return;
    }
    const prefix = `${topicPrefix(session.device.productKey, session.device.sn)}/down/`;
    const rest = sub.topic.startsWith(prefix) ? sub.topic.slice(prefix.length) : undefined;
    if (rest === undefined || !/^(#|\+|[a-z_]+)$/.test(rest)) {
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
      clean: client.clean,
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
