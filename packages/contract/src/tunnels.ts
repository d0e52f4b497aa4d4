/**
 * Remote tunnels (issue 19, docs/tunnels.md): a person with control of a device reaches a TCP port on the device's
 * LAN (a PLC's web page, a camera, an SSH or Modbus TCP server). The platform sends the device `down/tunnel` with a
 * single-use token; the device opens a reverse TCP connection to the platform's tunnel endpoint and the platform
 * exposes the far port at an allocated TCP port, or at a WebSocket path for use in the browser, that only the opener's
 * address may use. Seed section 3: name,
 * protocol, local ip, local port, address, status; 11015 while opening, 11016 when the device does not answer or
 * refuses.
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { text } from './text';

/** HTTP is TCP underneath: the tunnel carries bytes either way; the protocol says how the address is shown. */
export const TUNNEL_PROTOCOLS = ['tcp', 'http'] as const;
export type TunnelProtocol = (typeof TUNNEL_PROTOCOLS)[number];
/**
 * Where the far port is exposed: a TCP port of TUNNEL_PORTS, or a WebSocket path on the server's own HTTP port
 * (`/api/tunnels/:id/ws/<secret>`, binary frames carry the bytes) for browser tools and machines where only HTTPS
 * gets through.
 */
export const TUNNEL_EXPOSURES = ['tcp', 'ws'] as const;
export type TunnelExposure = (typeof TUNNEL_EXPOSURES)[number];
export const TUNNEL_STATUSES = ['opening', 'open', 'closed', 'failed'] as const;
export type TunnelStatus = (typeof TUNNEL_STATUSES)[number];
/**
 * Why a tunnel ended: closed by a person, idle too long, its maximum duration reached, the server stopped, its opener
 * lost control of the device (share revoked or reduced, device given away), or (failed)
 * the device did not answer in time, refused (its local port closed), or could not be asked (offline).
 */
export const TUNNEL_REASONS = [
  'user',
  'idle',
  'max_duration',
  'server_stop',
  'revoked',
  'timeout',
  'refused',
  'offline',
] as const;
export type TunnelReason = (typeof TUNNEL_REASONS)[number];

/** A dotted IPv4 address on the device's LAN (what DTUs route to). */
export const IPV4_RULE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export const tunnelBody = z.object({
  name: text().trim().min(1).max(64),
  protocol: z.enum(TUNNEL_PROTOCOLS).default('tcp'),
  exposure: z.enum(TUNNEL_EXPOSURES).default('tcp'),
  local_ip: text().trim().regex(IPV4_RULE, 'ipv4'),
  local_port: z.number().int().min(1).max(65535),
});
export type TunnelBody = z.input<typeof tunnelBody>;

export const tunnelListQuery = pageQuery;

export const tunnelItem = z.object({
  id: z.number().int(),
  sn: text(),
  name: text(),
  protocol: z.enum(TUNNEL_PROTOCOLS),
  exposure: z.enum(TUNNEL_EXPOSURES),
  local_ip: text(),
  local_port: z.number().int(),
  /**
   * tcp: `host:port` to connect to (http: put `http://` in front). ws: the `ws://` or `wss://` URL with the tunnel's
   * secret while it is open on the instance answering, the URL without its secret otherwise. Null before it opens
   * and after it fails.
   */
  address: text().nullable(),
  status: z.enum(TUNNEL_STATUSES),
  /** 11015 while opening, 11016 when it failed; null otherwise. */
  code: z.number().int().nullable(),
  reason: z.enum(TUNNEL_REASONS).nullable(),
  /** The only address the exposed port accepts connections from (the opener's, as the server saw it). */
  allowed_ip: text(),
  /** Bytes from the user to the device (in) and back (out); live while open. */
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
  /** User connections carried. */
  connections: z.number().int(),
  opened_by: text(),
  idle_timeout: z.number().int(),
  /** When it closes at the latest (max duration), while opening or open. */
  expires_at: text().nullable(),
  createdat: text(),
  closed_at: text().nullable(),
});
export type TunnelItem = z.infer<typeof tunnelItem>;

export const tunnelParams = z.object({
  sn: text().min(1).max(64),
  id: z.coerce.number().int().min(1).max(2_147_483_647),
});

export const tunnelWsParams = z.object({
  id: z.coerce.number().int().min(1).max(2_147_483_647),
  secret: text().min(1).max(64),
});

/** `P/down/tunnel`: open one reverse connection to `host:port`, to `local_ip:local_port`, with `token`. */
export const tunnelDown = z.object({
  id: z.number().int(),
  token: text().max(128),
  host: text().max(253),
  port: z.number().int(),
  local_ip: text().max(64),
  local_port: z.number().int(),
  /** Unix ms after which the token is refused. */
  expires: z.number().int(),
});
export type TunnelDown = z.infer<typeof tunnelDown>;

/** The first line a device sends on the reverse connection: `CELLHUB-TUNNEL <token>` or `... <token> REFUSED <why>`. */
export const TUNNEL_HELLO = 'CELLHUB-TUNNEL';
