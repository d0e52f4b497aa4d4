/**
 * `iot_platform_param`: how a device of a product bound to a third-party cloud connects to that cloud. Computed here
 * from the platform's config, the product's binding and the device's own cloud identity; stored on the device row
 * (seed field) and merged into every configuration pushed to the device (`withPlatformParam`).
 */
import { randomBytes } from 'node:crypto';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import {
  azurePlatformConfig,
  aliyunPlatformConfig,
  type IotPlatformParam,
  mqttPlatformConfig,
  netkitPlatformConfig,
  type PlatformCredentialItem,
  type PlatformCredentialsBody,
  type PlatformSyncResult,
  PRODUCT_PLATFORM_CONFIG_SCHEMAS,
  tencentPlatformConfig,
} from '@cellhub/contract/platforms';
import type { PageQuery } from '@cellhub/contract/common';
import { createHmac } from 'node:crypto';
import { AppError, formError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import type { DeviceLogEntry } from '../device-log/device-log.service';
import { type DeviceRow, devices } from '../devices/devices.table';
import type { ProductRow } from '../products/products.table';
import { products } from '../products/products.table';
import { aliyunMqttSign, azureSasToken, isBase64Key, tencentMqttSign } from './platform-signatures';
import { findPlatform, platformConfigOf } from './platforms.service';
import {
  type PlatformDeviceCredentialRow,
  platformDeviceCredentials,
  type PlatformRow,
} from './platforms.table';

const credentialContext = (deviceId: number, platformId: number) =>
  `platform-credential:${deviceId}:${platformId}`;
const DAY_MS = 86_400_000;
/** Passwords that expire are renewed when a sync finds them this close to expiry. */
const RENEW_BEFORE_MS = 30 * DAY_MS;

interface Credential {
  deviceName: string;
  secret: string;
}

/** What a product's binding needs to compute its devices' parameters. */
export interface PlatformBinding {
  platform: PlatformRow;
  /** platform_config with its secrets. */
  config: Record<string, unknown>;
  product: Record<string, unknown>;
}

export async function bindingOf(deps: Deps, product: ProductRow): Promise<PlatformBinding | null> {
  if (!product.iotPlatformId) return null;
  const platform = await findPlatform(deps.db, product.iotPlatformId);
  if (!platform) return null;
  return { platform, config: platformConfigOf(deps, platform), product: product.iotPlatformConfig };
}

/**
 * Checks a product's iot_platform_config against the type of the platform it binds to; returns the parsed config.
 * 10113 with details when the platform does not exist or the config does not fit.
 */
export async function validateBinding(
  deps: Deps,
  platformId: number | null,
  config: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (platformId === null) return {};
  const platform = await findPlatform(deps.db, platformId);
  if (!platform) throw formError('iot_platform_id', 'no such platform');
  const parsed = PRODUCT_PLATFORM_CONFIG_SCHEMAS[platform.platformType].safeParse(config);
  if (!parsed.success) {
    throw new AppError(
      10113,
      400,
      undefined,
      parsed.error.issues.map((i) => ({
        field: ['iot_platform_config', ...i.path.map(String)].join('.'),
        message: i.message,
      })),
    );
  }
  return parsed.data;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The parameters of one device, or null when its product is not bound or the cloud needs a per-device credential
 * the device does not have yet.
 */
export function computePlatformParam(
  deps: Deps,
  binding: PlatformBinding,
  device: Pick<DeviceRow, 'sn'>,
  credential: Credential | undefined,
): IotPlatformParam | null {
  const now = deps.now();
  const { platform } = binding;
  const base = {
    platform_type: platform.platformType,
    platform_id: platform.id,
    generated_at: now.toISOString(),
  };
  const deviceName = credential?.deviceName || device.sn;
  const fingerprint = deps.box.hmac(
    JSON.stringify([platform.platformType, binding.config, binding.product, device.sn, credential ?? null]),
  );
  switch (platform.platformType) {
    case 'aliyun': {
      const cfg = aliyunPlatformConfig.parse(binding.config);
      const productKey = str(binding.product.product_key);
      if (!credential || !productKey) return null;
      const sign = aliyunMqttSign({
        productKey,
        deviceName,
        deviceSecret: credential.secret,
        clientId: device.sn,
        timestamp: now.getTime(),
        securemode: cfg.securemode,
        signmethod: cfg.signmethod,
      });
      return {
        ...base,
        host: cfg.host || `${productKey}.iot-as-mqtt.${cfg.region_id}.aliyuncs.com`,
        port: cfg.port,
        tls: cfg.securemode === 2,
        client_id: sign.clientId,
        username: sign.username,
        password: sign.password,
        product_key: productKey,
        device_name: deviceName,
        expires_at: null,
        fingerprint,
      };
    }
    case 'tencent': {
      const cfg = tencentPlatformConfig.parse(binding.config);
      const productId = str(binding.product.product_id);
      if (!credential || !productId) return null;
      const expiry = Math.floor(now.getTime() / 1000) + cfg.token_ttl_days * 86_400;
      const sign = tencentMqttSign({
        productId,
        deviceName,
        devicePsk: credential.secret,
        connId: randomBytes(8).toString('hex').slice(0, 5).toUpperCase(),
        expiry,
        signmethod: cfg.signmethod,
      });
      return {
        ...base,
        host: cfg.host || `${productId}.iotcloud.tencentdevices.com`,
        port: cfg.port,
        tls: cfg.port === 8883,
        client_id: sign.clientId,
        username: sign.username,
        password: sign.password,
        product_key: productId,
        device_name: deviceName,
        expires_at: new Date(expiry * 1000).toISOString(),
        fingerprint,
      };
    }
    case 'azure': {
      const cfg = azurePlatformConfig.parse(binding.config);
      // A device key signs for that device alone; a hub policy key (DeviceConnect) can sign for any device.
      const key = credential?.secret || cfg.policy_key;
      if (!key) return null;
      const expiry = Math.floor(now.getTime() / 1000) + cfg.token_ttl_days * 86_400;
      const password = azureSasToken({
        resourceUri: `${cfg.hub_host}/devices/${deviceName}`,
        key,
        expiry,
        policyName: credential?.secret ? undefined : cfg.policy_name || undefined,
      });
      return {
        ...base,
        host: cfg.hub_host,
        port: cfg.port,
        tls: true,
        client_id: deviceName,
        username: `${cfg.hub_host}/${deviceName}/?api-version=${cfg.api_version}`,
        password,
        device_name: deviceName,
        expires_at: new Date(expiry * 1000).toISOString(),
        fingerprint,
      };
    }
    case 'netkit': {
      const cfg = netkitPlatformConfig.parse(binding.config);
      // A device token when one was given, else a token derived from the application secret.
      const password =
        credential?.secret ||
        (cfg.app_secret
          ? createHmac('sha256', cfg.app_secret).update(`${cfg.app_key}${deviceName}`).digest('hex')
          : '');
      if (!password) return null;
      return {
        ...base,
        host: cfg.host,
        port: cfg.port,
        tls: cfg.tls,
        client_id: deviceName,
        username: `${deviceName}&${cfg.app_key}`,
        password,
        product_key: str(binding.product.product_id) || undefined,
        device_name: deviceName,
        expires_at: null,
        fingerprint,
      };
    }
    case 'mqtt': {
      const cfg = mqttPlatformConfig.parse(binding.config);
      return {
        ...base,
        host: cfg.host,
        port: cfg.port,
        tls: cfg.tls,
        client_id: `${cfg.client_id_prefix}${device.sn}`,
        username: credential?.deviceName || cfg.username,
        password: credential?.secret || cfg.password,
        expires_at: null,
        fingerprint,
      };
    }
  }
}

/**
 * The configuration to push to a device: its expected configuration plus `iot_platform_param` when its product is
 * bound to a cloud. Call it wherever P/down/config is built.
 */
export function withPlatformParam(
  device: Pick<DeviceRow, 'iotPlatformParam'>,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const param = device.iotPlatformParam;
  if (!param || typeof param.platform_type !== 'string') return config;
  const { fingerprint: _unused, ...rest } = param;
  return { ...config, iot_platform_param: rest };
}

/** The platform parameters of one device as the API shows them (without the fingerprint), or {}. */
export function platformParamOf(device: Pick<DeviceRow, 'iotPlatformParam'>): Record<string, unknown> {
  const param = device.iotPlatformParam;
  if (!param || typeof param.platform_type !== 'string') return {};
  const { fingerprint: _unused, ...rest } = param;
  return rest;
}

function credentialOf(deps: Deps, row: PlatformDeviceCredentialRow | undefined): Credential | undefined {
  if (!row) return undefined;
  return {
    deviceName: row.deviceName,
    secret: deps.box.decrypt(row.secret, credentialContext(row.deviceId, row.platformId)),
  };
}

function stillGood(stored: Record<string, unknown>, fresh: IotPlatformParam, now: Date): boolean {
  if (stored.fingerprint !== fresh.fingerprint) return false;
  const expires = typeof stored.expires_at === 'string' ? Date.parse(stored.expires_at) : NaN;
  return Number.isNaN(expires) || expires - now.getTime() > RENEW_BEFORE_MS;
}

/**
 * What a sync did, and the device log entries it owes. This module writes no other module's table: the caller
 * (platform-sync.service.ts, or the devices service) writes `log`, so the device-log module never sits in a circle
 * with this one.
 */
export interface PlatformSync {
  result: PlatformSyncResult;
  log: DeviceLogEntry[];
}

/**
 * Recomputes the parameters of a product's devices (all, or those of `deviceIds`). A device whose parameters changed
 * gets a new expected configuration version, and the configuration at once when it is online.
 */
export async function syncProductPlatformParams(
  deps: Deps,
  product: ProductRow,
  deviceIds?: number[],
): Promise<PlatformSync> {
  const binding = await bindingOf(deps, product);
  const rows = await deps.db
    .select()
    .from(devices)
    .where(
      and(
        eq(devices.productKey, product.productKey),
        deviceIds ? inArray(devices.id, deviceIds.length ? deviceIds : [-1]) : undefined,
      ),
    );
  const creds = new Map<number, PlatformDeviceCredentialRow>();
  if (binding && rows.length) {
    const list = await deps.db
      .select()
      .from(platformDeviceCredentials)
      .where(
        and(
          eq(platformDeviceCredentials.platformId, binding.platform.id),
          inArray(
            platformDeviceCredentials.deviceId,
            rows.map((r) => r.id),
          ),
        ),
      );
    for (const c of list) creds.set(c.deviceId, c);
  }
  const now = deps.now();
  let updated = 0;
  let missing = 0;
  const changed: DeviceRow[] = [];
  const log: DeviceLogEntry[] = [];
  for (const d of rows) {
    const fresh = binding
      ? computePlatformParam(deps, binding, d, credentialOf(deps, creds.get(d.id)))
      : null;
    if (binding && !fresh) missing++;
    const stored = d.iotPlatformParam ?? {};
    const hadParam = typeof stored.platform_type === 'string';
    if (!fresh && !hadParam) continue;
    if (fresh && hadParam && stillGood(stored, fresh, now)) continue;
    const [row] = await deps.db
      .update(devices)
      .set({
        iotPlatformParam: fresh ?? {},
        expectConfigVersion: sql`${devices.expectConfigVersion} + 1`,
        configVersionDifferent: sql`${devices.configVersion} <> ${devices.expectConfigVersion} + 1`,
      })
      .where(eq(devices.id, d.id))
      .returning();
    if (row) {
      updated++;
      changed.push(row);
    }
  }
  for (const row of changed) {
    deps.events.publish(
      {
        type: 'device.config',
        sn: row.sn,
        product_key: row.productKey,
        config_version: row.configVersion,
        expect_config_version: row.expectConfigVersion,
        config_version_different: row.configVersionDifferent,
      },
      { uid: row.uid },
    );
    if (!deps.link.online(row.sn, row.online)) continue;
    try {
      await deps.link.send(row.productKey, row.sn, 'config', {
        version: row.expectConfigVersion,
        config: withPlatformParam(row, row.expectConfig),
      });
      log.push({
        deviceId: row.id,
        event: 'config_sent',
        detail: { version: row.expectConfigVersion, reason: 'iot_platform_param' },
      });
    } catch {
      // Not reachable now: it gets the configuration on its next connect (the versions differ).
    }
  }
  return { result: { updated, missing_credentials: missing }, log };
}

/** After a platform changed: every product bound to it. */
export async function syncPlatformProducts(deps: Deps, platformId: number): Promise<PlatformSync> {
  const bound = await deps.db.select().from(products).where(eq(products.iotPlatformId, platformId));
  const total: PlatformSync = { result: { updated: 0, missing_credentials: 0 }, log: [] };
  for (const p of bound) {
    const r = await syncProductPlatformParams(deps, p);
    total.result.updated += r.result.updated;
    total.result.missing_credentials += r.result.missing_credentials;
    total.log.push(...r.log);
  }
  return total;
}

/**
 * For the devices module: call after devices were created under (or moved to) a product; returns the device log
 * entries to write.
 */
export async function syncDevicesPlatformParams(
  deps: Deps,
  productKey: string,
  deviceIds: number[],
): Promise<DeviceLogEntry[]> {
  const [product] = await deps.db.select().from(products).where(eq(products.productKey, productKey));
  if (!product?.iotPlatformId) return [];
  return (await syncProductPlatformParams(deps, product, deviceIds)).log;
}

function checkSecret(type: PlatformRow['platformType'], secret: string): string | undefined {
  if ((type === 'tencent' || type === 'azure') && !isBase64Key(secret)) {
    return 'must be the base64 key the cloud shows (16 bytes or more)';
  }
  return undefined;
}

/**
 * Stores devices' cloud identities (sealed) and recomputes their parameters. One result per line, and the device
 * log entries to write.
 */
export async function setPlatformCredentials(
  deps: Deps,
  actor: Actor,
  product: ProductRow,
  input: PlatformCredentialsBody,
): Promise<{ results: { sn: string; code: number; message?: string }[]; log: DeviceLogEntry[] }> {
  const binding = await bindingOf(deps, product);
  if (!binding) throw formError('iot_platform_id', 'the product is not bound to a platform');
  const sns = [...new Set(input.items.map((i) => i.sn))];
  const found = await deps.db
    .select({ id: devices.id, sn: devices.sn })
    .from(devices)
    .where(and(eq(devices.productKey, product.productKey), inArray(devices.sn, sns)));
  const idOf = new Map(found.map((d) => [d.sn, d.id]));
  const results: { sn: string; code: number; message?: string }[] = [];
  const stored: number[] = [];
  await deps.db.transaction(async (tx) => {
    for (const item of input.items) {
      const deviceId = idOf.get(item.sn);
      if (deviceId === undefined) {
        results.push({ sn: item.sn, code: 10117, message: 'no such device of this product' });
        continue;
      }
      const problem = checkSecret(binding.platform.platformType, item.device_secret);
      if (problem) {
        results.push({ sn: item.sn, code: 10113, message: problem });
        continue;
      }
      const values = {
        deviceId,
        platformId: binding.platform.id,
        deviceName: item.device_name ?? '',
        secret: deps.box.encrypt(item.device_secret, credentialContext(deviceId, binding.platform.id)),
      };
      await tx
        .insert(platformDeviceCredentials)
        .values(values)
        .onConflictDoUpdate({
          target: [platformDeviceCredentials.deviceId, platformDeviceCredentials.platformId],
          set: { deviceName: values.deviceName, secret: values.secret, updatedat: new Date() },
        });
      results.push({ sn: item.sn, code: 0 });
      stored.push(deviceId);
    }
  });
  const log: DeviceLogEntry[] = stored.map((deviceId) => ({
    deviceId,
    event: 'updated' as const,
    detail: { by: actor.username, platform_credential: binding.platform.id },
  }));
  if (stored.length) log.push(...(await syncProductPlatformParams(deps, product, stored)).log);
  return { results, log };
}

export async function listPlatformCredentials(
  deps: Deps,
  product: ProductRow,
  query: PageQuery,
): Promise<{ items: PlatformCredentialItem[]; total: number }> {
  const platformId = product.iotPlatformId ?? -1;
  const where = eq(devices.productKey, product.productKey);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        sn: devices.sn,
        param: devices.iotPlatformParam,
        deviceName: platformDeviceCredentials.deviceName,
        credUpdatedat: platformDeviceCredentials.updatedat,
      })
      .from(devices)
      .leftJoin(
        platformDeviceCredentials,
        and(
          eq(platformDeviceCredentials.deviceId, devices.id),
          eq(platformDeviceCredentials.platformId, platformId),
        ),
      )
      .where(where)
      .orderBy(asc(devices.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(devices).where(where),
  ]);
  return {
    items: rows.map((r) => ({
      sn: r.sn,
      device_name: r.deviceName || r.sn,
      has_secret: r.credUpdatedat !== null,
      has_param: typeof r.param?.platform_type === 'string',
      updatedat: r.credUpdatedat?.toISOString() ?? null,
    })),
    total: total?.n ?? 0,
  };
}
