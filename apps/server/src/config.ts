import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { serverRoot } from './lib/paths';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
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
  TRUST_PROXY: bool(false),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  SMS_PROVIDER: z.enum(['log']).default('log'),
  SMS_CODE_LOG_FILE: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
  adminPassword: string | undefined;
  secretKey: string;
  /** Without trailing slash; where browsers and OAuth providers reach this server. */
  publicUrl: string;
  tokenTtlHours: number;
  wechat: { appid?: string; secret?: string; oauthUrl: string; apiUrl: string };
  consoleDist: string;
  trustProxy: boolean;
  bodyLimit: number;
  /** Requests per minute per client address and route; 0 switches the flood guard off. */
  rateLimitPerMinute: number;
  smsProvider: 'log';
  smsCodeLogFile: string | undefined;
  logLevel: string;
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
    adminPassword: e.CELLHUB_ADMIN_PASSWORD,
    secretKey: '',
    publicUrl: trimSlash(e.PUBLIC_URL ?? `http://localhost:${port}`),
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
    trustProxy: e.TRUST_PROXY,
    bodyLimit: e.BODY_LIMIT_BYTES,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    smsProvider: e.SMS_PROVIDER,
    smsCodeLogFile: e.SMS_CODE_LOG_FILE ? path.resolve(e.SMS_CODE_LOG_FILE) : undefined,
    logLevel: e.LOG_LEVEL,
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
