/**
 * The device protocol (PROTOCOL.md): topics and payload schemas. Devices, the simulator and the server's gateway all
 * read them from here, so a change to the wire format is one change.
 */
import { z } from 'zod';
import { text } from './text';
import { deviceConfig } from './device-config';

/** A serial number is also the MQTT clientId and one topic level: no `/`, `+`, `#`, `$` or spaces. */
export const SN_RULE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
export const PRODUCT_KEY_RULE = /^[A-Za-z0-9][A-Za-z0-9_-]{3,31}$/;
export const PROPERTY_KEY_RULE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * A gateway speaks for the sub-devices bound to it (docs/gateway-rules.md) on its own topics, naming the sub-device
 * in a `sub` field of the payload: `P/up/sub_property` `{"sub": "<sub sn>", "params": {...}}` and so on.
 */
export const SUB_UP_KINDS = [
  'sub_property',
  'sub_status',
  'sub_raw',
  'sub_event',
  'sub_config',
  'sub_cmd_reply',
] as const;
export type SubUpKind = (typeof SUB_UP_KINDS)[number];
export const SUB_DOWN_KINDS = ['sub_cmd', 'sub_raw', 'sub_config'] as const;
export type SubDownKind = (typeof SUB_DOWN_KINDS)[number];
export const isSubUpKind = (kind: string): kind is SubUpKind =>
  (SUB_UP_KINDS as readonly string[]).includes(kind);

export const UP_KINDS = [
  'property',
  'info',
  'status',
  'config',
  'config_get',
  'cmd_reply',
  'ota',
  'raw',
  'event',
  ...SUB_UP_KINDS,
] as const;
export type UpKind = (typeof UP_KINDS)[number];
export const DOWN_KINDS = [
  'property_reply',
  'config',
  'cmd',
  'ota',
  'raw',
  // remote tunnels (docs/tunnels.md): open a reverse connection
  'tunnel',
  ...SUB_DOWN_KINDS,
] as const;
export type DownKind = (typeof DOWN_KINDS)[number];

/** `dev/{product_key}/{sn}`: the prefix P of every device topic. */
export const topicPrefix = (productKey: string, sn: string): string => `dev/${productKey}/${sn}`;
export const upTopic = (productKey: string, sn: string, kind: UpKind): string =>
  `${topicPrefix(productKey, sn)}/up/${kind}`;
export const downTopic = (productKey: string, sn: string, kind: DownKind): string =>
  `${topicPrefix(productKey, sn)}/down/${kind}`;

export interface ParsedTopic {
  productKey: string;
  sn: string;
  direction: 'up' | 'down';
  /** Not checked against the known kinds: an unknown kind is the router's to count. */
  kind: string;
}

/** Splits `dev/{pk}/{sn}/{up|down}/{kind}`; anything else is undefined. */
export function parseTopic(topic: string): ParsedTopic | undefined {
  const parts = topic.split('/');
  if (parts.length !== 5 || parts[0] !== 'dev') return undefined;
  const [, productKey, sn, direction, kind] = parts as [string, string, string, string, string];
  if (direction !== 'up' && direction !== 'down') return undefined;
  if (!productKey || !sn || !kind) return undefined;
  return { productKey, sn, direction, kind };
}

export const isUpKind = (kind: string): kind is UpKind => (UP_KINDS as readonly string[]).includes(kind);

export const propertyValue = z.union([z.number(), text().max(1024), z.boolean()]);
export type PropertyValue = z.infer<typeof propertyValue>;
const params = z.record(text().regex(PROPERTY_KEY_RULE), propertyValue);
const messageId = text().max(64);
/** Unix milliseconds; years 2000 to 2100 so seconds sent by mistake are refused rather than stored in 1970. */
const unixMs = z.number().int().min(946_684_800_000).max(4_102_444_800_000);

/** `P/up/property`: one set of values, or a batch buffered while offline. At most 1000 items per message. */
export const propertyUp = z.union([
  z.object({ id: messageId.optional(), ts: unixMs.optional(), params }),
  z.object({
    id: messageId.optional(),
    items: z
      .array(z.object({ ts: unixMs, params }))
      .min(1)
      .max(1000),
  }),
]);
export type PropertyUp = z.infer<typeof propertyUp>;

/** `P/down/property_reply`: code 0 stored, otherwise the code table says why it was refused. */
export const propertyReply = z.object({
  id: text(),
  code: z.number().int(),
  message: text().optional(),
});
export type PropertyReply = z.infer<typeof propertyReply>;

const shortText = text().max(128);
export const infoUp = z
  .object({
    fw_version: shortText,
    hw_version: shortText,
    bootloader_version: shortText,
    imei: shortText,
    imsi: shortText,
    iccid: shortText,
    phone: shortText,
    ipaddress: shortText,
    rssi: z.number(),
    csq: z.number(),
    signal_strength: z.number(),
    cellular_mode: shortText,
    band: z.union([shortText, z.number()]),
    pci: z.union([shortText, z.number()]),
    cell_id: z.union([shortText, z.number()]),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    uplink: shortText,
    login_protocol: shortText,
    /** Factory test (docs/production.md): hardware and self-test results, checked field by field by the server. */
    hw: z.unknown(),
    test: z.unknown(),
  })
  .partial()
  .strict();
export type InfoUp = z.infer<typeof infoUp>;
export const INFO_FIELDS = Object.keys(infoUp.shape) as (keyof InfoUp)[];

export const statusUp = z.object({ online: z.union([z.literal(0), z.literal(1)]) });
export type StatusUp = z.infer<typeof statusUp>;

/**
 * `P/up/event`: something happened on the device, named by an event identifier of its product's thing model, with
 * that event's output parameters (checked against the model by the server, docs/device-protocol.md).
 */
export const eventUp = z
  .object({
    id: messageId.optional(),
    event: text().regex(PROPERTY_KEY_RULE),
    params: z.record(text().regex(PROPERTY_KEY_RULE), z.unknown()).default({}),
    ts: unixMs.optional(),
  })
  .strict();
export type EventUp = z.infer<typeof eventUp>;

/** `P/up/config` (what runs now) and `P/down/config` (what should run). */
export const configMessage = z.object({ version: z.number().int().min(0), config: deviceConfig });
export type ConfigMessage = z.infer<typeof configMessage>;
export const configGetUp = z.object({}).loose();

/** Hex command data: even length, hex digits only, no `0x` (seed section 5). */
export const HEX_RULE = /^(?:[0-9A-Fa-f]{2})+$/;
export const commandType = z.enum(['hex', 'string']);
export type CommandType = z.infer<typeof commandType>;
export const cmdDown = z.object({ id: text(), type: commandType, data: text() });
export type CmdDown = z.infer<typeof cmdDown>;
export const cmdReplyUp = z.object({
  id: text().min(1).max(64),
  code: z.number().int(),
  data: text().max(8192).optional(),
});
export type CmdReplyUp = z.infer<typeof cmdReplyUp>;

/** The sub-device a gateway speaks for: its sn, bound to the gateway by a gateway rule. */
const subSn = text().regex(SN_RULE);
/** A sub-device's raw bytes travel as hex in JSON: twice the bytes (64 KB, as `P/up/raw`). */
export const MAX_SUB_RAW_HEX = 2 * 64 * 1024;
/** Hex bytes of a sub-device's serial data (`sub_raw`, both ways): even length, no `0x`, at most 64 KB. */
const subRawData = text()
  .max(MAX_SUB_RAW_HEX)
  .regex(/^(?:[0-9A-Fa-f]{2})+$/);
/** `P/up/sub_property`: `P/up/property` with `sub`; `id` is answered on the gateway's `P/down/property_reply`. */
export const subPropertyUp = z.union([
  z.object({ sub: subSn, id: messageId.optional(), ts: unixMs.optional(), params }),
  z.object({
    sub: subSn,
    id: messageId.optional(),
    items: z
      .array(z.object({ ts: unixMs, params }))
      .min(1)
      .max(1000),
  }),
]);
export type SubPropertyUp = z.infer<typeof subPropertyUp>;
/** `P/up/sub_status`: the gateway says whether the sub-device answers it. */
export const subStatusUp = z.object({ sub: subSn, online: z.union([z.literal(0), z.literal(1)]) });
/** `P/up/sub_raw` and `P/down/sub_raw`: bytes from / for the sub-device, as hex. */
export const subRawMessage = z.object({ sub: subSn, data: subRawData });
export type SubRawMessage = z.infer<typeof subRawMessage>;
/** `P/up/sub_event`: `P/up/event` with `sub`. */
export const subEventUp = z.object({ sub: subSn }).loose();
/** `P/up/sub_config` and `P/down/sub_config`: `P/up/config` / `P/down/config` with `sub`. */
export const subConfigMessage = z.object({
  sub: subSn,
  version: z.number().int().min(0),
  config: deviceConfig,
});
/** `P/down/sub_cmd`: `P/down/cmd` with `sub`; answered on `P/up/sub_cmd_reply`. */
export const subCmdDown = z.object({ sub: subSn, id: text(), type: commandType, data: text() });
export type SubCmdDown = z.infer<typeof subCmdDown>;
export const subCmdReplyUp = z.object({
  sub: subSn,
  id: text().min(1).max(64),
  code: z.number().int(),
  data: text().max(8192).optional(),
});
export type SubCmdReplyUp = z.infer<typeof subCmdReplyUp>;

export const otaDown = z.object({
  id: text(),
  version: text(),
  url: text(),
  size: z.number().int(),
  checksum: text(),
  algorithm: z.enum(['md5', 'sha256']),
});
export type OtaDown = z.infer<typeof otaDown>;
export const otaUp = z.object({
  id: text().min(1).max(64),
  status: z.number().int().min(0).max(6),
  progress: z.number().min(0).max(100).optional(),
  message: text().max(512).optional(),
});
export type OtaUp = z.infer<typeof otaUp>;

/** Payload size limits the gateway enforces (bytes). */
export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const MAX_RAW_BYTES = 64 * 1024;

/** Dynamic registration: POST /api/device-auth/register. */
export const deviceRegisterBody = z.object({
  product_key: text().regex(PRODUCT_KEY_RULE),
  sn: text().regex(SN_RULE),
  ts: z.coerce.number().int(),
  sign: text().regex(/^[0-9a-fA-F]{64}$/),
});
export type DeviceRegisterBody = z.infer<typeof deviceRegisterBody>;
export const deviceRegisterResult = z.object({ product_key: text(), sn: text(), secret: text() });
