import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';
import type { Aedes, Client } from 'aedes';
import mqttPacket, { type IConnectPacket, type IPublishPacket, type Packet } from 'mqtt-packet';
import { BrokerSessions } from '../broker-sessions';
import {
  ackToV4,
  ackToV5,
  connackToV5,
  connectToV4,
  publishToV4,
  propertyFault,
  publishToV5,
  REASON,
  subackToV5,
  subscribeRefusal,
  subscribeToV4,
  TopicAliases,
  unsubackToV5,
} from './translate';

/** Reason codes a refusing CONNACK may carry among those the front uses; any other becomes a protocol error. */
const CONNACK_REFUSALS = new Set<number>([
  REASON.unspecifiedError,
  REASON.malformedPacket,
  REASON.protocolError,
  REASON.badAuthenticationMethod,
  REASON.retainNotSupported,
]);
const connackRefusal = (reasonCode: number) =>
  CONNACK_REFUSALS.has(reasonCode) ? reasonCode : REASON.protocolError;

/**
 * The Receive Maximum a 5.0 device is told: Aedes' limit of inbound QoS 2 messages awaiting PUBREL (it closes a
 * connection with more); the front holds the device to it for QoS 1 and 2 alike, with DISCONNECT 0x93.
 */
function receiveMaximumOf(aedes: Aedes): number | undefined {
  const limit = (aedes as unknown as { maxInflightInbound?: number }).maxInflightInbound;
  return limit && limit < 65_535 ? limit : undefined;
}

/** How long a device may keep its half of the connection open after the server ended it. */
const END_GRACE_MS = 2000;

/** What the front counts for tests and health. */
export interface FrontStats {
  /** MQTT 5.0 connections handed to Aedes through a translating connection. */
  v5Connections: number;
  /** Connections handed to Aedes as they are (3.1.1, 3.1, and anything that is not a 5.0 CONNECT). */
  directConnections: number;
  /** Outgoing PUBLISH packets larger than the device's Maximum Packet Size, dropped. */
  oversizeDropped: number;
}

export interface V5Context {
  aedes: Aedes;
  stats: FrontStats;
  debug(msg: string, detail: Record<string, unknown>): void;
}

/** The Aedes side of a translated connection: looks like a socket to Aedes, carries 3.1.1 bytes. */
class BrokerSide extends Duplex {
  /** Read by the gateway for the device's IP (TCP; over WebSocket the request has it). */
  remoteAddress: string | undefined;
}

/**
 * One MQTT 5.0 device connection in front of Aedes 1.2. The device's 5.0 packets are parsed, turned into 3.1.1
 * packets and fed to Aedes through an in-memory duplex; what Aedes writes back is parsed and turned into 5.0.
 * Authentication, ACL, limits, PUBACK-after-commit, takeover, wills and keep-alive stay Aedes' and the
 * gateway's, exactly as for 3.1.1 devices.
 */
export class V5Connection {
  private readonly inner: BrokerSide;
  private readonly fromDevice = mqttPacket.parser({ protocolVersion: 5 });
  private readonly fromBroker = mqttPacket.parser({ protocolVersion: 4 });
  private readonly aliases = new TopicAliases();
  /** Topic filter count of each UNSUBSCRIBE in flight, for the 5.0 UNSUBACK. */
  private readonly unsubscribes = new Map<number, number>();
  /** QoS 2 messages dropped as too large: their PUBREL from Aedes is answered here. */
  private readonly droppedQos2 = new Set<number>();
  /** Packet ids of the device's QoS 1 and 2 messages not yet acknowledged (PUBACK, PUBCOMP): its Receive Maximum. */
  private readonly inflight = new Set<number>();
  /** The Receive Maximum the CONNACK announces (65,535 when it announces none). */
  private readonly receiveMaximum: number;
  /** Session expiry after the connection, for the broker's sessions (absent on a bare Aedes). */
  private readonly sessions: BrokerSessions | undefined;
  /** The Session Expiry Interval of the CONNECT (seconds). */
  private sessionExpiry = 0;
  private readonly client: Client;
  private clientId = '';
  /** 0: the device set no limit. */
  private maxPacketSize = 0;
  private connectSeen = false;
  private connackSent = false;
  /** Bytes read from the device so far; those up to `bytesBeforeConnack` were sent before the CONNACK went out. */
  private bytesRead = 0;
  /** The packets being parsed were all sent before the CONNACK went out. */
  private early = true;
  /** The device said goodbye (DISCONNECT) or its stream ended: nothing more goes to it. */
  private deviceDone = false;
  private deviceClosed = false;
  private devicePaused = false;
  /** End of stream was pushed to Aedes: nothing more may be. */
  private brokerEnded = false;
  /** Set by the front when Aedes gives up on the keep-alive. */
  closeReason: number | undefined;

  constructor(
    private readonly ctx: V5Context,
    private readonly device: Duplex,
    req: IncomingMessage | undefined,
    /**
     * How many bytes of `device` (from its first) were sent before the CONNACK went out, undefined before it went
     * out (DeviceStream.bytesBeforeConnack). Without it, what arrives after the CONNACK counts as sent after it.
     */
    private readonly bytesBeforeConnack?: () => number | undefined,
  ) {
    this.inner = new BrokerSide({
      read: () => {
        if (this.devicePaused) {
          this.devicePaused = false;
          this.device.resume();
        }
      },
      write: (chunk: Buffer, _encoding, callback) => {
        this.fromBroker.parse(chunk);
        if (this.device.writableNeedDrain && !this.deviceClosed) {
          const done = () => {
            this.device.off('close', done);
            this.device.off('drain', done);
            callback();
          };
          this.device.once('drain', done);
          this.device.once('close', done);
        } else callback();
      },
      destroy: (err, callback) => {
        // Aedes closed the connection (refused CONNECT, takeover, keep-alive, kick, shutdown) or the device went.
        // A takeover registers the new client right after this old one's socket is destroyed.
        process.nextTick(() => this.brokerClosed());
        callback(err);
      },
    });
    this.inner.remoteAddress = (device as { remoteAddress?: string }).remoteAddress;

    this.fromDevice.on('packet', (p: Packet) => {
      try {
        this.onDevicePacket(p);
      } catch (err) {
        // mqtt-packet parses some packets it then refuses to generate (a zero packet id, ...).
        this.protocolFailure(REASON.malformedPacket, (err as Error).message);
      }
    });
    this.fromDevice.on('error', (err: Error) => this.protocolFailure(REASON.malformedPacket, err.message));
    this.fromBroker.on('packet', (p: Packet) => {
      try {
        this.onBrokerPacket(p);
      } catch (err) {
        ctx.debug('mqtt5: packet from the broker not translatable', {
          cmd: p.cmd,
          err: (err as Error).message,
        });
        this.inner.destroy();
      }
    });
    this.fromBroker.on('error', (err: Error) => {
      ctx.debug('mqtt5: unreadable packet from the broker', { err: err.message });
      this.inner.destroy();
    });

    device.on('data', (chunk: Buffer) => {
      if (this.deviceDone) return;
      this.bytesRead += chunk.length;
      // A packet is early when the chunk completing it ends before the boundary; the stream passes what came
      // before the CONNACK and what came after in separate chunks.
      const boundary = this.bytesBeforeConnack?.();
      this.early = boundary === undefined ? !this.connackSent : this.bytesRead <= boundary;
      this.fromDevice.parse(chunk);
    });
    device.on('error', (err: Error) => ctx.debug('mqtt5: device stream error', { err: err.message }));
    device.on('end', () => this.deviceEnded());
    device.once('close', () => {
      this.deviceClosed = true;
      this.deviceEnded();
    });

    this.sessions = BrokerSessions.of(ctx.aedes);
    this.receiveMaximum = receiveMaximumOf(ctx.aedes) ?? 65_535;
    this.client = ctx.aedes.handle(this.inner, req);
    // Aedes reads `version` only to report it (the gateway logs it as the device's protocol); it sets 4 from the
    // translated CONNECT, while the device speaks 5.
    Object.defineProperty(this.client, 'version', { get: () => 5, set: () => undefined, configurable: true });
    device.resume();
  }

  /** The Aedes client of this connection (for the front's keep-alive hook). */
  get aedesClient(): Client {
    return this.client;
  }

  // --- device -> Aedes ----------------------------------------------------------------------------------

  private toBroker(p: Packet): void {
    if (this.brokerEnded || this.inner.destroyed) return;
    if (!this.inner.push(mqttPacket.generate(p)) && !this.devicePaused) {
      this.devicePaused = true;
      this.device.pause();
    }
  }

  private onDevicePacket(p: Packet): void {
    if (this.deviceDone) return;
    if (p.cmd !== 'connect' && !this.connectSeen)
      return this.protocolFailure(REASON.protocolError, 'no CONNECT');
    const fault = p.cmd === 'connect' ? undefined : propertyFault(p);
    if (fault !== undefined) return this.protocolFailure(fault, `${p.cmd} properties`);
    switch (p.cmd) {
      case 'connect':
        return this.onConnect(p);
      case 'publish': {
        const topic = this.aliases.resolve(p);
        if (typeof topic === 'number') return this.protocolFailure(topic, 'topic alias');
        // CONNACK said Retain Available 0 (MQTT 5.0 3.3.1.3).
        if (p.retain) return this.protocolFailure(REASON.retainNotSupported, 'retained PUBLISH');
        if (p.qos > 0 && p.messageId !== undefined && !this.inflight.has(p.messageId)) {
          // A resent copy (same packet id) takes no second place. Messages sent before the CONNACK went out do
          // not count: until the device has read it, it may assume 65,535 (MQTT 5.0 3.1.2.11.3, 4.9), and the
          // front may let them in only after the CONNACK (device-stream.ts).
          if (!this.early) {
            if (this.inflight.size >= this.receiveMaximum) {
              return this.protocolFailure(REASON.receiveMaximumExceeded, 'receive maximum exceeded');
            }
            this.inflight.add(p.messageId);
          }
        }
        return this.toBroker(publishToV4(p, topic));
      }
      case 'puback':
      case 'pubrec':
      case 'pubrel':
      case 'pubcomp':
        return this.toBroker(ackToV4(p.cmd, p.messageId));
      case 'subscribe': {
        const refusal = subscribeRefusal(p);
        if (refusal !== undefined)
          return this.protocolFailure(refusal, 'SUBSCRIBE with what CONNACK refused');
        return this.toBroker(subscribeToV4(p));
      }
      case 'unsubscribe':
        if (p.messageId !== undefined) this.unsubscribes.set(p.messageId, p.unsubscriptions.length);
        return this.toBroker({
          cmd: 'unsubscribe',
          messageId: p.messageId,
          unsubscriptions: p.unsubscriptions,
        });
      case 'pingreq':
        return this.toBroker({ cmd: 'pingreq' });
      case 'disconnect': {
        const expiry = p.properties?.sessionExpiryInterval;
        if (expiry !== undefined) {
          // MQTT 5.0 3.14.2.2.2: a session the CONNECT ended with the connection cannot be kept by the DISCONNECT.
          if (this.sessionExpiry === 0 && expiry > 0) {
            return this.protocolFailure(REASON.protocolError, 'session expiry set on DISCONNECT');
          }
          this.sessions?.setExpiry(this.client, expiry);
        }
        this.deviceDone = true;
        // Only a normal disconnection (0x00) discards the will; any other reason, 0x04 "with will" first among
        // them, ends the connection as lost, so Aedes publishes the will.
        if ((p.reasonCode ?? 0) === REASON.success) this.toBroker({ cmd: 'disconnect' });
        return this.endBroker();
      }
      case 'auth':
        // Enhanced authentication is not offered: a CONNECT naming a method got CONNACK 0x8C, so an AUTH packet
        // here is a Protocol Error (MQTT 5.0 4.12; 0x8C is not a DISCONNECT reason code, parsers refuse it).
        return this.protocolFailure(REASON.protocolError, 'AUTH packet');
      default:
        return this.protocolFailure(REASON.protocolError, `unexpected ${p.cmd} from the device`);
    }
  }

  private onConnect(p: IConnectPacket): void {
    if (this.connectSeen) return this.protocolFailure(REASON.protocolError, 'second CONNECT');
    this.connectSeen = true;
    this.clientId = p.clientId;
    if (p.properties?.authenticationMethod !== undefined) {
      return this.protocolFailure(REASON.badAuthenticationMethod, 'enhanced authentication');
    }
    // MQTT-3.2.2-13: a will to retain cannot be honoured (CONNACK says Retain Available 0).
    if (p.will?.retain) return this.protocolFailure(REASON.retainNotSupported, 'will retain');
    this.maxPacketSize = p.properties?.maximumPacketSize ?? 0;
    this.sessionExpiry = p.properties?.sessionExpiryInterval ?? 0;
    this.sessions?.setExpiry(this.client, this.sessionExpiry);
    this.toBroker(connectToV4(p, this.sessions !== undefined));
  }

  /** The device broke the protocol: tell it why (CONNACK before the connection is up, else DISCONNECT), drop it. */
  private protocolFailure(reasonCode: number, why: string): void {
    if (this.deviceDone) return;
    this.ctx.debug('mqtt5: closing a device connection', { clientId: this.clientId, reasonCode, why });
    this.endDevice(reasonCode);
    // As a lost connection: Aedes publishes the will (MQTT 5.0 3.1.2.5: only a normal DISCONNECT discards it).
    this.inner.destroy();
  }

  /**
   * The device's stream ended or closed. Aedes still gets every packet already parsed (a PUBLISH waiting behind
   * a commit, a final DISCONNECT) before the end of stream, as it would from a closed socket's buffer.
   */
  private deviceEnded(): void {
    this.deviceDone = true;
    this.endBroker();
  }

  /** End of stream after what was already pushed: Aedes reads the rest (a final DISCONNECT included) first. */
  private endBroker(): void {
    if (this.brokerEnded || this.inner.destroyed) return;
    this.brokerEnded = true;
    this.inner.push(null);
  }

  // --- Aedes -> device ----------------------------------------------------------------------------------

  private toDevice(p: Packet): void {
    if (this.deviceClosed || this.device.writableEnded) return;
    this.device.write(mqttPacket.generate(p, { protocolVersion: 5 }));
  }

  private onBrokerPacket(p: Packet): void {
    switch (p.cmd) {
      case 'connack':
        this.connackSent = p.returnCode === 0;
        return this.toDevice(connackToV5(p, receiveMaximumOf(this.ctx.aedes)));
      case 'publish':
        return this.publishToDevice(p);
      case 'pubrel':
        if (p.messageId !== undefined && this.droppedQos2.delete(p.messageId)) {
          return this.toBroker({ cmd: 'pubcomp', messageId: p.messageId });
        }
        return this.toDevice(ackToV5('pubrel', p.messageId));
      case 'puback':
      case 'pubcomp':
        // The end of one of the device's QoS 1 or 2 messages: its place in the Receive Maximum is free.
        if (p.messageId !== undefined) this.inflight.delete(p.messageId);
        return this.toDevice(ackToV5(p.cmd, p.messageId));
      case 'pubrec':
        return this.toDevice(ackToV5(p.cmd, p.messageId));
      case 'suback':
        return this.toDevice(subackToV5(p));
      case 'unsuback': {
        const filters = (p.messageId !== undefined && this.unsubscribes.get(p.messageId)) || 1;
        if (p.messageId !== undefined) this.unsubscribes.delete(p.messageId);
        return this.toDevice(unsubackToV5(p.messageId, filters));
      }
      case 'pingresp':
        return this.toDevice({ cmd: 'pingresp' });
      default:
        this.ctx.debug('mqtt5: packet from the broker not forwarded', { cmd: p.cmd });
    }
  }

  private publishToDevice(p: IPublishPacket): void {
    if (this.deviceClosed || this.device.writableEnded) return;
    const bytes = mqttPacket.generate(publishToV5(p), { protocolVersion: 5 });
    if (this.maxPacketSize > 0 && bytes.length > this.maxPacketSize) {
      // MQTT 5.0 3.1.2.11.4: discard it and behave as if it had been delivered, so Aedes does not keep it in flight.
      this.ctx.stats.oversizeDropped++;
      this.ctx.debug('mqtt5: publish larger than the device maximum packet size dropped', {
        clientId: this.clientId,
        topic: p.topic,
        bytes: bytes.length,
        max: this.maxPacketSize,
      });
      if (p.qos === 1) this.toBroker({ cmd: 'puback', messageId: p.messageId });
      if (p.qos === 2 && p.messageId !== undefined) {
        this.droppedQos2.add(p.messageId);
        this.toBroker({ cmd: 'pubrec', messageId: p.messageId });
      }
      return;
    }
    this.device.write(bytes);
  }

  /** Aedes dropped the connection: say why when it can be told (MQTT 5.0 servers may), then close the device. */
  private brokerClosed(): void {
    if (this.deviceDone) {
      this.endDevice(undefined);
      return;
    }
    let reason = this.closeReason;
    if (reason === undefined && this.clientId) {
      const current = (this.ctx.aedes as unknown as { clients: Record<string, Client | undefined> }).clients[
        this.clientId
      ];
      if (current && current !== this.client) reason = REASON.sessionTakenOver;
    }
    if (reason === undefined && this.ctx.aedes.closed) reason = REASON.serverShuttingDown;
    this.endDevice(this.connackSent ? reason : undefined);
  }

  /** Ends the device stream, with a DISCONNECT (or, before the CONNACK, a refusing CONNACK) when a reason is given. */
  private endDevice(reasonCode: number | undefined): void {
    const wasDone = this.deviceDone;
    this.deviceDone = true;
    if (this.deviceClosed || this.device.writableEnded) return;
    let last: Buffer | undefined;
    if (reasonCode !== undefined && !wasDone) {
      last = mqttPacket.generate(
        this.connackSent
          ? { cmd: 'disconnect', reasonCode }
          : { cmd: 'connack', sessionPresent: false, reasonCode: connackRefusal(reasonCode) },
        { protocolVersion: 5 },
      );
    }
    if (last) this.device.end(last);
    else this.device.end();
    const timer = setTimeout(() => this.device.destroy(), END_GRACE_MS);
    timer.unref();
    this.device.once('close', () => clearTimeout(timer));
  }
}
