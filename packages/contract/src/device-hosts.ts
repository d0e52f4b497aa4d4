/**
 * Device hosts (issue 18, docs/device-hosts.md): TCP or UDP servers the platform runs for DTUs in socket mode. A DTU
 * connects, sends its registration packet (its sn or IMEI, as text or hex, found by a pattern's first capture
 * group), then its serial bytes: each packet becomes a `raw` uplink of the device. Heartbeat packets (the configured
 * content) keep the connection alive and are not stored. Admins manage hosts; any signed-in user may read the
 * enabled hosts' addresses (to point a device's socket at one).
 */
import { z } from 'zod';
import { patternProblem } from './command-groups';
import { pageQuery } from './common';
import { text } from './text';

export const DEVICE_HOST_PROTOCOLS = ['tcp', 'udp'] as const;
export type DeviceHostProtocol = (typeof DEVICE_HOST_PROTOCOLS)[number];
/** Where a host listens: this machine only, or every interface. */
export const DEVICE_HOST_BINDS = ['0.0.0.0', '127.0.0.1'] as const;
/** How a packet is read for matching: its bytes as text (UTF-8), or as upper-case hex digits. */
export const PACKET_FORMATS = ['text', 'hex'] as const;
export type PacketFormat = (typeof PACKET_FORMATS)[number];
/** What the registration packet's capture names: the device's sn, or its IMEI (as the device reported it). */
export const REGISTER_BY = ['sn', 'imei'] as const;
export type RegisterBy = (typeof REGISTER_BY)[number];

export const IDLE_TIMEOUT_MAX_S = 86_400;
export const HEARTBEAT_DATA_MAX = 512;

/** A hex rule: even count of hex digits, spaces allowed. */
export const isHexData = (s: string): boolean => /^([0-9a-fA-F]{2}\s*)*$/.test(s.trim());
/** The UTF-8 bytes of text, without relying on a global TextEncoder (the contract compiles for no platform). */
function utf8(s: string): Uint8Array {
  const out: number[] = [];
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/** The bytes of a hex or text rule. */
export const dataBytes = (format: PacketFormat, data: string): Uint8Array =>
  format === 'hex'
    ? Uint8Array.from((data.replace(/\s+/g, '').match(/../g) ?? []).map((h) => parseInt(h, 16)))
    : utf8(data);

/** Why a registration pattern is refused: it must compile, be safe (command-groups' rule) and capture a group. */
export function registrationPatternProblem(pattern: string): string | undefined {
  const problem = patternProblem(pattern);
  if (problem) return problem;
  // One more alternative that matches the empty string: its group count is the pattern's.
  const groups = (new RegExp(`${pattern}|`).exec('')?.length ?? 1) - 1;
  return groups < 1 ? 'pattern_needs_capture' : undefined;
}

const name = text().trim().min(1).max(64);

export const deviceHostBody = z
  .object({
    name,
    protocol: z.enum(DEVICE_HOST_PROTOCOLS),
    bind: z.enum(DEVICE_HOST_BINDS).default('0.0.0.0'),
    port: z.number().int().min(1).max(65535),
    enabled: z.boolean().default(true),
    register_by: z.enum(REGISTER_BY).default('sn'),
    register_format: z.enum(PACKET_FORMATS).default('text'),
    /** Matched against the first packet (text, or upper-case hex digits); the first capture group is the id. */
    register_pattern: text().max(200).default('^(.+)$'),
    heartbeat_format: z.enum(PACKET_FORMATS).default('text'),
    /** A packet exactly this content is a heartbeat ('' for none). */
    heartbeat_data: text().max(HEARTBEAT_DATA_MAX).default(''),
    /** Seconds between the DTU's heartbeats (what the device is configured with; shown, and a floor of the idle timeout). */
    heartbeat_interval: z.number().int().min(0).max(IDLE_TIMEOUT_MAX_S).default(60),
    /** Seconds without any packet after which the connection is closed and the device offline. */
    idle_timeout: z.number().int().min(1).max(IDLE_TIMEOUT_MAX_S).default(180),
    remark: text().trim().max(200).default(''),
  })
  .superRefine((b, ctx) => {
    const problem = registrationPatternProblem(b.register_pattern);
    if (problem) ctx.addIssue({ code: 'custom', path: ['register_pattern'], message: problem });
    if (b.heartbeat_format === 'hex' && !isHexData(b.heartbeat_data))
      ctx.addIssue({ code: 'custom', path: ['heartbeat_data'], message: 'hex_invalid' });
  });
export type DeviceHostBody = z.input<typeof deviceHostBody>;

/** Every field may change; a changed port or protocol restarts the listener (its connections are closed). */
export const deviceHostUpdateBody = z
  .object({
    name,
    protocol: z.enum(DEVICE_HOST_PROTOCOLS),
    bind: z.enum(DEVICE_HOST_BINDS),
    port: z.number().int().min(1).max(65535),
    enabled: z.boolean(),
    register_by: z.enum(REGISTER_BY),
    register_format: z.enum(PACKET_FORMATS),
    register_pattern: text().max(200),
    heartbeat_format: z.enum(PACKET_FORMATS),
    heartbeat_data: text().max(HEARTBEAT_DATA_MAX),
    heartbeat_interval: z.number().int().min(0).max(IDLE_TIMEOUT_MAX_S),
    idle_timeout: z.number().int().min(1).max(IDLE_TIMEOUT_MAX_S),
    remark: text().trim().max(200),
  })
  .partial()
  .superRefine((b, ctx) => {
    if (b.register_pattern !== undefined) {
      const problem = registrationPatternProblem(b.register_pattern);
      if (problem) ctx.addIssue({ code: 'custom', path: ['register_pattern'], message: problem });
    }
    if (b.heartbeat_data !== undefined && b.heartbeat_format === 'hex' && !isHexData(b.heartbeat_data))
      ctx.addIssue({ code: 'custom', path: ['heartbeat_data'], message: 'hex_invalid' });
  });
export type DeviceHostUpdateBody = z.input<typeof deviceHostUpdateBody>;

export const deviceHostIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const deviceHostListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  protocol: z.enum(DEVICE_HOST_PROTOCOLS).optional(),
});
export type DeviceHostListQuery = z.infer<typeof deviceHostListQuery>;

/** The listener of a host on this server: listening, stopped (disabled), or failed (`error`, e.g. EADDRINUSE). */
export const deviceHostState = z.enum(['listening', 'stopped', 'failed']);
export type DeviceHostState = z.infer<typeof deviceHostState>;

/** Counters since the listener started on this server (memory only). */
export const deviceHostCounters = z.object({
  connections: z.number().int(),
  registrations: z.number().int(),
  refused: z.number().int(),
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
  frames_in: z.number().int(),
  frames_out: z.number().int(),
  heartbeats: z.number().int(),
  timeouts: z.number().int(),
  errors: z.number().int(),
});
export type DeviceHostCounters = z.infer<typeof deviceHostCounters>;

export const deviceHostItem = z.object({
  id: z.number().int(),
  name: text(),
  protocol: z.enum(DEVICE_HOST_PROTOCOLS),
  bind: z.enum(DEVICE_HOST_BINDS),
  port: z.number().int(),
  enabled: z.boolean(),
  register_by: z.enum(REGISTER_BY),
  register_format: z.enum(PACKET_FORMATS),
  register_pattern: text(),
  heartbeat_format: z.enum(PACKET_FORMATS),
  heartbeat_data: text(),
  heartbeat_interval: z.number().int(),
  idle_timeout: z.number().int(),
  remark: text(),
  /** Where devices reach it: DEVICE_HOST_ADDRESS (or the host of PUBLIC_URL) and the port. */
  address: text(),
  state: deviceHostState,
  /** Why the listener failed (the socket error's code and text). */
  error: text().nullable(),
  connected: z.number().int(),
  createdat: text(),
  updatedat: text(),
});
export type DeviceHostItem = z.infer<typeof deviceHostItem>;

export const connectedDevice = z.object({
  sn: text(),
  product_key: text(),
  /** The DTU's address and port as the host sees it. */
  remote: text(),
  since: text(),
  last_seen: text(),
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
  frames_in: z.number().int(),
  heartbeats: z.number().int(),
});
export type ConnectedDevice = z.infer<typeof connectedDevice>;

export const REFUSED_REASONS = ['no_match', 'unknown', 'disabled', 'ambiguous', 'error'] as const;
export const refusedRegistration = z.object({
  at: text(),
  remote: text(),
  reason: z.enum(REFUSED_REASONS),
  /** What the pattern captured ('' when nothing matched). */
  id: text(),
  /** The start of the packet, hex (at most 64 bytes). */
  packet: text(),
});
export type RefusedRegistration = z.infer<typeof refusedRegistration>;

export const deviceHostDetail = deviceHostItem.extend({
  counters: deviceHostCounters,
  devices: z.array(connectedDevice),
  /** The last refused registrations, newest first (at most 50, memory only). */
  refused_registrations: z.array(refusedRegistration),
});
export type DeviceHostDetail = z.infer<typeof deviceHostDetail>;

/** GET /api/device-hosts/addresses: what a device's socket may point at (any signed-in user). */
export const deviceHostAddress = z.object({
  id: z.number().int(),
  name: text(),
  protocol: z.enum(DEVICE_HOST_PROTOCOLS),
  address: text(),
  port: z.number().int(),
});
export type DeviceHostAddress = z.infer<typeof deviceHostAddress>;
