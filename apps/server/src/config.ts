import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MAP_TILE_PROVIDERS, type MapTileProvider, tileTemplateProblem } from '@cellhub/contract/map-tiles';
import { parseAllowList } from './lib/outbound';
import { serverRoot } from './lib/paths';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
/** A range of ports, `first-last` within 1-65535 (device hosts, tunnels). */
const portRange = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((v, ctx) => {
      const m = /^(\d{1,5})\s*-\s*(\d{1,5})$/.exec(v);
      const min = m ? Number(m[1]) : NaN;
      const max = m ? Number(m[2]) : NaN;
      if (!(min >= 1 && max <= 65535 && min <= max)) {
        ctx.addIssue({ code: 'custom', message: `a port range first-last within 1-65535, e.g. ${fallback}` });
        return z.NEVER;
      }
      return { min, max };
    });
const url = z.url({ protocol: /^https?$/ });
const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));
const bool = (fallback: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : ['1', 'true', 'yes'].includes(v)));

/** The environment Cellhub reads (docs/configuration.md). Unknown variables are ignored. */
const envSchema = z.object({
  PORT: port(8080),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(
        /^(postgres(ql)?:\/\/|memory:\/\/)/,
        'must start with postgres:// (or memory:// for a throwaway database)',
      )
      .optional(),
  ),
  MQTT_PORT: port(1883),
  MQTT_URL: optionalString.pipe(
    z
      .string()
      .regex(/^(mqtts?|wss?):\/\//, 'must start with mqtt://, mqtts://, ws:// or wss://')
      .optional(),
  ),
  MQTT_SHARE_GROUP: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (at most 64)')
    .default('cellhub'),
  MQTT_SUBSCRIPTION: z.enum(['shared', 'plain']).default('shared'),
  CELLHUB_ADMIN_PASSWORD: optionalString,
  SECRET_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  PUBLIC_URL: optionalString.pipe(url.optional()),
  TOKEN_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 366)
    .default(168),
  WECHAT_APPID: optionalString,
  WECHAT_SECRET: optionalString,
  WECHAT_OAUTH_URL: url.default('https://open.weixin.qq.com'),
  WECHAT_API_URL: url.default('https://api.weixin.qq.com'),
  CONSOLE_DIST: optionalString,
  CONSOLE_SOURCE_MAPS: bool(false),
  TRUST_PROXY: bool(false),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  DEVICE_LIST_COUNT_CAP: z.coerce.number().int().min(1).default(10_000),
  SESSION_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  DEVICE_LIST_COUNT_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(3000),
  SMS_PROVIDER: z.enum(['log']).default('log'),
  SMS_CODE_LOG_FILE: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FIRMWARE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(64 * 1024 * 1024),
  APPLICATION_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(512 * 1024 * 1024),
  /** Comma list of host[:port], IP[:port], [IPv6]:port and CIDR entries the outbound client may reach anyway. */
  OUTBOUND_ALLOW: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const entries = v
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '');
      try {
        parseAllowList(entries);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
      return entries;
    }),
  // Replaced by OUTBOUND_ALLOW: refused rather than ignored, so a lab relying on it learns why imports stop.
  FIRMWARE_ALLOW_PRIVATE_URLS: z
    .enum(['', '0', 'false', 'no'], {
      error: 'replaced by OUTBOUND_ALLOW (host[:port] or CIDR entries), see docs/configuration.md',
    })
    .optional(),
  FIRMWARE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  NOTIFY_ALIYUN_SMS_URL: url.default('https://dysmsapi.aliyuncs.com'),
  NOTIFY_TENCENT_SMS_URL: url.default('https://sms.tencentcloudapi.com'),
  NOTIFY_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(5),
  NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(100).default(30_000),
  NOTIFY_POLL_MS: z.coerce.number().int().min(0).default(2000),
  NOTIFY_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  SIM_SYNC_TICK_MS: z.coerce.number().int().min(0).default(30_000),
  SCRIPT_FAILURES_TO_DISABLE: z.coerce.number().int().min(1).max(1_000_000).default(20),
  SCRIPT_TIME_LIMIT_MS: z.coerce.number().int().min(1).max(10_000).default(50),
  /** Days before a SIM package's expiry at which its user is reminded; '' for none. */
  SIM_REMIND_DAYS: z
    .string()
    .trim()
    .regex(/^(\d{1,4}(\s*,\s*\d{1,4})*)?$/, 'a comma-separated list of days, e.g. 7,3,1')
    .default('7,3,1')
    .transform((v) =>
      [
        ...new Set(
          v
            .split(',')
            .filter((d) => d.trim() !== '')
            .map(Number),
        ),
      ]
        .filter((d) => d > 0)
        .sort((a, b) => b - a),
    ),
  SIM_REMIND_DATA_PERCENT: z.coerce.number().min(0).max(100).default(10),
  SIM_REMIND_INTERVAL_MS: z.coerce.number().int().min(0).default(600_000),
  /** Telemetry maintenance (docs/telemetry-scale.md): partitions, rollups, retention; 0: none. */
  TELEMETRY_MAINTENANCE_MS: z.coerce.number().int().min(0).default(3_600_000),
  /** Default map tiles (docs/configuration.md): a preset name or an http(s) URL template with {z}/{x}/{y}. */
  MAP_TILES: z
    .string()
    .trim()
    .default('osm')
    .refine(
      (v) =>
        (MAP_TILE_PROVIDERS as readonly string[]).includes(v) && v !== 'custom'
          ? true
          : !tileTemplateProblem(v),
      'osm, amap, tianditu, none, or an http(s) URL template with {z}, {x} and {y}',
    ),
  /** Ports device hosts may listen on (docs/device-hosts.md): `first-last`. */
  DEVICE_HOST_PORTS: portRange('20000-20999'),
  /** The address devices use to reach device hosts; defaults to the host of PUBLIC_URL. */
  DEVICE_HOST_ADDRESS: optionalString,
  /** Remote tunnels (docs/tunnels.md): the endpoint devices open reverse connections to (0: any free port). */
  TUNNEL_PORT: port(21100),
  /** Ports a tunnel may be exposed at: `first-last`. */
  TUNNEL_PORTS: portRange('21000-21099'),
  /** The address devices and people reach tunnels at; defaults to the host of PUBLIC_URL. */
  TUNNEL_ADDRESS: optionalString,
  TUNNEL_OPEN_TIMEOUT_S: z.coerce.number().int().min(1).max(300).default(15),
  TUNNEL_IDLE_S: z.coerce.number().int().min(1).max(86_400).default(600),
  TUNNEL_MAX_S: z.coerce.number().int().min(1).max(604_800).default(7200),
  /** Where uploaded files live (docs/storage.md): `dir` (DATA_DIR/files, one instance) or `postgres` (shared). */
  FILE_STORE: z.enum(['dir', 'postgres']).default('dir'),
  /** External brokers (docs/external-brokers.md): the shared secret EMQX sends to the auth hooks. */
  BROKER_HOOK_SECRET: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Provision Mosquitto's dynamic-security plugin on MQTT_URL with the devices' credentials and ACLs. */
  MQTT_DYNSEC: bool(false),
  MQTT_DYNSEC_USERNAME: optionalString,
  MQTT_DYNSEC_PASSWORD: optionalString,
  /** Seconds between full reconciliations of the broker's clients with the devices (one also runs at start). */
  MQTT_DYNSEC_RECONCILE_S: z.coerce.number().int().min(1).max(604_800).default(3600),
  MAP_TIANDITU_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, 'must be the 32-character key of a Tianditu browser application')
      .optional(),
  ),
});

export interface Config {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  /** `postgres://...`, `memory://` (throwaway PGlite) or undefined (PGlite in DATA_DIR/pg). */
  databaseUrl: string | undefined;
  mqttPort: number;
  mqttUrl: string | undefined;
  /** Shared-subscription group of the server instances on an external broker. */
  mqttShareGroup: string;
  /**
   * External broker: `shared` (several instances split device traffic through the share group) or `plain` (one
   * instance, an ordinary subscription, which Mosquitto 2.0 keeps across its own restart where it drops a shared one).
   */
  mqttSubscription: 'shared' | 'plain';
  adminPassword: string | undefined;
  secretKey: string;
  /** Without trailing slash; where browsers and OAuth providers reach this server. */
  publicUrl: string;
  /** PUBLIC_URL was set (not the localhost default): links made for people use it rather than a request's Host. */
  publicUrlSet: boolean;
  tokenTtlHours: number;
  wechat: { appid?: string; secret?: string; oauthUrl: string; apiUrl: string };
  consoleDist: string;
  /** Serve the console's `.map` files (404 otherwise: they show the source to anyone). */
  consoleSourceMaps: boolean;
  trustProxy: boolean;
  bodyLimit: number;
  /** Requests per minute per client address and route; 0 switches the flood guard off. */
  rateLimitPerMinute: number;
  /** The device list counts at most this many matches past the page start; above it `total` is a lower bound. */
  deviceListCountCap: number;
  /** A session the database confirmed is trusted this long without a lookup (revocations still end it at once). */
  sessionCacheMs: number;
  /** The device list reuses a count of the same owner and filters this long (0: count on every page). */
  deviceListCountCacheMs: number;
  smsProvider: 'log';
  smsCodeLogFile: string | undefined;
  logLevel: string;
  /** Largest firmware binary accepted (upload or URL import), bytes. */
  firmwareMaxBytes: number;
  /** Largest application package accepted (docs/applications.md), bytes. */
  applicationMaxBytes: number;
  /** Whole-download limit of a firmware URL import, ms. */
  firmwareFetchTimeoutMs: number;
  /**
   * OUTBOUND_ALLOW: hosts the outbound client (lib/outbound.ts) reaches although they are loopback, private or
   * otherwise not public (on-premise operator APIs, a LAN firmware server). Read on every call.
   */
  outboundAllow: readonly string[];
  /** Notification channels (docs/notifications.md). */
  notify: {
    /** Aliyun Dysmsapi endpoint (tests point it at a local fake). */
    aliyunSmsUrl: string;
    /** Tencent Cloud SMS endpoint. */
    tencentSmsUrl: string;
    /** Messages per minute per channel and recipient; the rest wait (deferred, never dropped). */
    ratePerMinute: number;
    /** First retry delay; doubled per try (capped at one hour), with jitter. */
    retryBaseMs: number;
    /** How often the delivery worker looks for due messages; 0: no background worker (tests drive it). */
    pollMs: number;
    /** Limit of one provider call. */
    sendTimeoutMs: number;
  };
  /** How often each instance schedules and works SIM sync runs (docs/sim.md); 0: no worker (tests drive it). */
  simSyncTickMs: number;
  /** Scripts (docs/scripts.md): failures in a row that disable a script, and the time limit of one call. */
  scripts: { failuresToDisable: number; timeLimitMs: number; cacheMs: number };
  /** SIM reminders (docs/sim.md "Reminders"): days before expiry, low-data percentage, pass interval (0: none). */
  simRemind: { days: number[]; dataPercent: number; intervalMs: number };
  /** TELEMETRY_MAINTENANCE_MS: how often the telemetry maintenance job runs (docs/telemetry-scale.md); 0: never. */
  telemetryMaintenanceMs: number;
  /** Device hosts (docs/device-hosts.md): the ports they may take and the address devices reach them at. */
  deviceHosts: { ports: { min: number; max: number }; address: string };
  /**
   * Remote tunnels (docs/tunnels.md): the reverse-connection endpoint's port (0: any), the exposed ports, the address
   * shown, how long the device has to answer, idle timeout and maximum duration.
   */
  tunnels: {
    port: number;
    ports: { min: number; max: number };
    address: string;
    openTimeoutMs: number;
    idleMs: number;
    maxMs: number;
  };
  /**
   * FILE_STORE (docs/storage.md): where firmware binaries, application packages and scene images live. `dir`:
   * DATA_DIR/files, for one instance; `postgres`: chunks in the database, shared by every instance on it.
   */
  fileStore: 'dir' | 'postgres';
  /** MAP_TILES / MAP_TIANDITU_KEY: the map tiles until an admin saves the setting (system settings, Map). */
  mapTiles: { provider: MapTileProvider; customUrl: string; tiandituKey: string };
  /**
   * Device auth on an external broker (docs/external-brokers.md): `hookSecret` guards the EMQX HTTP hooks (unset:
   * they answer 401); `dynsec` provisions Mosquitto's dynamic-security plugin over MQTT_URL as `username`
   * (default: MQTT_URL's user), re-checking every device each `reconcileMs` and at every start.
   */
  brokerAuth: {
    hookSecret: string | undefined;
    dynsec: { enabled: boolean; username?: string; password?: string; reconcileMs: number };
  };
}

export class ConfigError extends Error {}

const trimSlash = (s: string) => s.replace(/\/+$/, '');

/**
 * Reads and validates the environment. `overrides` win over the environment (tests, embedding).
 * SECRET_KEY, when unset, is read from or generated into DATA_DIR/secret.key so restarts keep the same key.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.MQTT_DYNSEC && !e.MQTT_URL) {
    throw new ConfigError(
      'invalid configuration:\n  MQTT_DYNSEC: needs MQTT_URL (the Mosquitto to provision)',
    );
  }
  if (e.MAP_TILES === 'tianditu' && !e.MAP_TIANDITU_KEY) {
    throw new ConfigError('invalid configuration:\n  MAP_TILES: tianditu needs MAP_TIANDITU_KEY');
  }
  const dataDir = path.resolve(overrides.dataDir ?? e.DATA_DIR);
  const port = overrides.port ?? e.PORT;
  const config: Config = {
    port,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    mqttPort: e.MQTT_PORT,
    mqttUrl: e.MQTT_URL,
    mqttShareGroup: e.MQTT_SHARE_GROUP,
    mqttSubscription: e.MQTT_SUBSCRIPTION,
    adminPassword: e.CELLHUB_ADMIN_PASSWORD,
    secretKey: '',
    publicUrl: trimSlash(e.PUBLIC_URL ?? `http://localhost:${port}`),
    publicUrlSet: e.PUBLIC_URL !== undefined,
    tokenTtlHours: e.TOKEN_TTL_HOURS,
    wechat: {
      appid: e.WECHAT_APPID,
      secret: e.WECHAT_SECRET,
      oauthUrl: trimSlash(e.WECHAT_OAUTH_URL),
      apiUrl: trimSlash(e.WECHAT_API_URL),
    },
    consoleDist: e.CONSOLE_DIST
      ? path.resolve(e.CONSOLE_DIST)
      : path.resolve(serverRoot(), '..', 'console', 'dist'),
    consoleSourceMaps: e.CONSOLE_SOURCE_MAPS,
    trustProxy: e.TRUST_PROXY,
    bodyLimit: e.BODY_LIMIT_BYTES,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    deviceListCountCap: e.DEVICE_LIST_COUNT_CAP,
    sessionCacheMs: e.SESSION_CACHE_MS,
    deviceListCountCacheMs: e.DEVICE_LIST_COUNT_CACHE_MS,
    smsProvider: e.SMS_PROVIDER,
    smsCodeLogFile: e.SMS_CODE_LOG_FILE ? path.resolve(e.SMS_CODE_LOG_FILE) : undefined,
    logLevel: e.LOG_LEVEL,
    firmwareMaxBytes: e.FIRMWARE_MAX_BYTES,
    applicationMaxBytes: e.APPLICATION_MAX_BYTES,
    firmwareFetchTimeoutMs: e.FIRMWARE_FETCH_TIMEOUT_MS,
    outboundAllow: e.OUTBOUND_ALLOW,
    notify: {
      aliyunSmsUrl: trimSlash(e.NOTIFY_ALIYUN_SMS_URL),
      tencentSmsUrl: trimSlash(e.NOTIFY_TENCENT_SMS_URL),
      ratePerMinute: e.NOTIFY_RATE_PER_MINUTE,
      retryBaseMs: e.NOTIFY_RETRY_BASE_MS,
      pollMs: e.NOTIFY_POLL_MS,
      sendTimeoutMs: e.NOTIFY_SEND_TIMEOUT_MS,
    },
    simSyncTickMs: e.SIM_SYNC_TICK_MS,
    // cacheMs: how long an instance trusts which script a product uses (a change elsewhere takes this long).
    scripts: {
      failuresToDisable: e.SCRIPT_FAILURES_TO_DISABLE,
      timeLimitMs: e.SCRIPT_TIME_LIMIT_MS,
      cacheMs: 5000,
    },
    simRemind: {
      days: e.SIM_REMIND_DAYS,
      dataPercent: e.SIM_REMIND_DATA_PERCENT,
      intervalMs: e.SIM_REMIND_INTERVAL_MS,
    },
    telemetryMaintenanceMs: e.TELEMETRY_MAINTENANCE_MS,
    deviceHosts: {
      ports: e.DEVICE_HOST_PORTS,
      address: e.DEVICE_HOST_ADDRESS ?? new URL(e.PUBLIC_URL ?? `http://localhost:${port}`).hostname,
    },
    tunnels: {
      port: e.TUNNEL_PORT,
      ports: e.TUNNEL_PORTS,
      address: e.TUNNEL_ADDRESS ?? new URL(e.PUBLIC_URL ?? `http://localhost:${port}`).hostname,
      openTimeoutMs: e.TUNNEL_OPEN_TIMEOUT_S * 1000,
      idleMs: e.TUNNEL_IDLE_S * 1000,
      maxMs: e.TUNNEL_MAX_S * 1000,
    },
    fileStore: e.FILE_STORE,
    mapTiles: (MAP_TILE_PROVIDERS as readonly string[]).includes(e.MAP_TILES)
      ? { provider: e.MAP_TILES as MapTileProvider, customUrl: '', tiandituKey: e.MAP_TIANDITU_KEY ?? '' }
      : { provider: 'custom', customUrl: e.MAP_TILES, tiandituKey: e.MAP_TIANDITU_KEY ?? '' },
    brokerAuth: {
      hookSecret: e.BROKER_HOOK_SECRET,
      dynsec: {
        enabled: e.MQTT_DYNSEC,
        username: e.MQTT_DYNSEC_USERNAME,
        password: e.MQTT_DYNSEC_PASSWORD,
        reconcileMs: e.MQTT_DYNSEC_RECONCILE_S * 1000,
      },
    },
    ...overrides,
  };
  config.secretKey = overrides.secretKey ?? e.SECRET_KEY ?? loadOrCreateSecretKey(config.dataDir);
  return config;
}

function loadOrCreateSecretKey(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (key.length < 32) throw new ConfigError(`${file} holds a key shorter than 32 characters`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  // 'wx' so two instances starting together on one DATA_DIR cannot overwrite each other's key.
  try {
    writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecretKey(dataDir);
    throw err;
  }
  chmodSync(file, 0o600);
  return key;
}
