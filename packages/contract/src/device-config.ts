/**
 * The device configuration (PROTOCOL.md "Configuration", seed section 3 "Device config groups"). Every group and
 * field is optional so a change can carry one group; unknown fields are kept (firmware may report more than the
 * console edits), but the known ones are checked.
 */
import { z } from 'zod';
import { text as safeText } from './text';

const text = (max = 128) => safeText().max(max);
const port = z.number().int().min(1).max(65535);
const qos = z.union([z.literal(0), z.literal(1), z.literal(2)]);

const topicEntry = z
  .object({ topic: text(256), qos })
  .partial()
  .loose();

export const MQTT_TOPIC_SLOTS = 8;
export const SOCKET_SLOTS = 4;

const serialPort = z
  .object({
    baud: z.number().int().min(300).max(4_000_000),
    data_bits: z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]),
    stop_bits: z.union([z.literal(1), z.literal(1.5), z.literal(2)]),
    parity: z.enum(['none', 'odd', 'even', 'mark', 'space']),
    flow_control: z.enum(['none', 'rtscts', 'xonxoff']),
  })
  .partial()
  .loose();

const socketEntry = z
  .object({
    enable: z.boolean(),
    protocol: z.enum(['tcp', 'udp']),
    server: text(),
    port,
    backup_server: text(),
    backup_port: port,
    heartbeat: z
      .object({ enable: z.boolean(), interval: z.number().int().min(0).max(86_400), data: text(512) })
      .partial()
      .loose(),
    registration: z
      .object({ enable: z.boolean(), data: text(512) })
      .partial()
      .loose(),
  })
  .partial()
  .loose();

export const deviceConfig = z
  .object({
    global: z
      .object({
        apn: z
          .object({ name: text(), username: text(), password: text(), auth: text(16) })
          .partial()
          .loose(),
        ntp: z
          .object({ enable: z.boolean(), server: text(), interval: z.number().int().min(0) })
          .partial()
          .loose(),
        advanced: z.record(safeText(), z.unknown()),
      })
      .partial()
      .loose(),
    mqtt: z
      .object({
        server: text(),
        port,
        client_id: text(),
        username: text(),
        password: text(),
        keepalive: z.number().int().min(0).max(65_535),
        subscribe: z.array(topicEntry).max(MQTT_TOPIC_SLOTS),
        publish: z.array(topicEntry).max(MQTT_TOPIC_SLOTS),
        will: z
          .object({ topic: text(256), qos, payload: text(1024), retain: z.boolean() })
          .partial()
          .loose(),
      })
      .partial()
      .loose(),
    serial: z.object({ rs232: serialPort, rs485: serialPort }).partial().loose(),
    socket: z.array(socketEntry).max(SOCKET_SLOTS),
    aliyun: z
      .object({
        mode: z.enum(['off', 'direct', 'transparent']),
        product_key: text(),
        device_name: text(),
        device_secret: text(),
        region: text(),
      })
      .partial()
      .loose(),
  })
  .partial()
  .loose();
export type DeviceConfig = z.infer<typeof deviceConfig>;
