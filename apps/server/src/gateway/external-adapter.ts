import type { FastifyBaseLogger } from 'fastify';
import type { MqttClient } from 'mqtt';
import { parseTopic } from '@cellhub/contract/protocol';
import { type BrokerAdapter, type DeviceGateway } from './device-gateway';

/**
 * Every instance joins the same shared-subscription group, so the broker splits device traffic between them.
 * Separate deployments on one broker need separate groups (MQTT_SHARE_GROUP).
 */
export const sharedUplinkFilter = (group = 'cellhub') => `$share/${group}/dev/+/+/up/#`;

/** Non-property uplinks handled at once before the client stops reading (and so stops acknowledging). */
const MAX_IN_FLIGHT = 256;

/**
 * The gateway on an external broker (MQTT_URL). The server is one more client: a persistent session (clean: false,
 * fixed clientId) with a QoS 1 shared subscription, so messages that arrive while it restarts wait at the broker.
 *
 * Acknowledgement: mqtt.js acknowledges a QoS 1 message when `handleMessage` calls back and handles one message at
 * a time, so waiting for each database commit would serialise ingest. Property messages are acknowledged once
 * their rows are in the writer's bounded queue (when it is full, the callback waits: the broker holds the rest);
 * shutdown flushes the queue. A crash of the server can lose at most that queue. Device authentication and topic
 * ACLs are the broker's job in this mode (a later issue wires them to the server).
 */
export function attachExternal(
  client: MqttClient,
  gateway: DeviceGateway,
  log: FastifyBaseLogger,
  shareGroup = 'cellhub',
): BrokerAdapter {
  const filter = sharedUplinkFilter(shareGroup);
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    inFlight--;
    waiting.shift()?.();
  };

  const subscribe = () => {
    client.subscribe(filter, { qos: 1 }, (err) => {
      if (err) log.error({ err: err.message }, 'external broker refused the uplink subscription');
    });
  };
  // With a persistent session the broker keeps the subscription; subscribing again on every connect is harmless
  // and covers a broker that lost its state.
  client.on('connect', subscribe);
  if (client.connected) subscribe();

  client.handleMessage = (packet, callback) => {
    const done = () => callback();
    const parsed = parseTopic(packet.topic);
    if (!parsed || parsed.direction !== 'up') return done();
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    gateway.auth
      .get(parsed.sn)
      .then(async (device) => {
        if (!device || device.productKey !== parsed.productKey) {
          log.debug({ topic: packet.topic }, 'uplink from an unknown device dropped');
          return done();
        }
        if (device.disabled) return done();
        const ref = { id: device.id, sn: device.sn, productKey: device.productKey, uid: device.uid };
        if (parsed.kind === 'property') {
          await gateway.uplink(ref, parsed.kind, payload, { ackOnQueued: true });
          return done();
        }
        while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
        inFlight++;
        void gateway.uplink(ref, parsed.kind, payload, { presenceFromStatus: true }).finally(release);
        done();
      })
      .catch((err: unknown) => {
        log.error({ err }, 'external uplink failed');
        done();
      });
  };

  return {
    kind: 'external',
    reachable: () => client.connected,
    kick: () => undefined,
    publish: async (topic, payload, qos) => {
      await client.publishAsync(topic, payload, { qos });
    },
  };
}
