import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';
import { serverRoot } from './lib/paths';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'cellhub-config-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('applies the defaults of CONTRACT.md', () => {
    const dataDir = tmp();
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir,
      databaseUrl: undefined,
      mqttPort: 1883,
      mqttUrl: undefined,
      tokenTtlHours: 168,
      publicUrl: 'http://localhost:8080',
      publicUrlSet: false,
      wechat: { oauthUrl: 'https://open.weixin.qq.com', apiUrl: 'https://api.weixin.qq.com' },
      consoleDist: path.resolve(serverRoot(), '../console/dist'),
    });
  });

  it('generates SECRET_KEY into DATA_DIR/secret.key (0600) once and reuses it', () => {
    const dataDir = tmp();
    const first = loadConfig({ DATA_DIR: dataDir });
    const file = path.join(dataDir, 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secretKey);
    expect(first.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATA_DIR: dataDir }).secretKey).toBe(first.secretKey);
  });

  it('prefers SECRET_KEY from the environment', () => {
    const c = loadConfig({ DATA_DIR: tmp(), SECRET_KEY: 's'.repeat(40) });
    expect(c.secretKey).toBe('s'.repeat(40));
  });

  it('reads every variable', () => {
    const c = loadConfig({
      DATA_DIR: tmp(),
      PORT: '9000',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u@h/db',
      MQTT_PORT: '0',
      MQTT_URL: 'mqtt://broker:1883',
      CELLHUB_ADMIN_PASSWORD: 'Secret123',
      PUBLIC_URL: 'https://hub.example.com/',
      TOKEN_TTL_HOURS: '12',
      WECHAT_APPID: 'wx1',
      WECHAT_SECRET: 'sec',
      CONSOLE_DIST: '/srv/console',
      SMS_CODE_LOG_FILE: '/tmp/codes.txt',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      databaseUrl: 'postgres://u@h/db',
      mqttPort: 0,
      mqttUrl: 'mqtt://broker:1883',
      adminPassword: 'Secret123',
      publicUrl: 'https://hub.example.com',
      publicUrlSet: true,
      tokenTtlHours: 12,
      wechat: { appid: 'wx1', secret: 'sec' },
      consoleDist: '/srv/console',
      smsCodeLogFile: '/tmp/codes.txt',
      rateLimitPerMinute: 0,
    });
  });

  it('refuses bad values with a message naming each variable', () => {
    const bad = () =>
      loadConfig({
        DATA_DIR: tmp(),
        PORT: 'eighty',
        MQTT_URL: 'http://x',
        SECRET_KEY: 'short',
        DATABASE_URL: 'mysql://x',
      });
    expect(bad).toThrow(ConfigError);
    try {
      bad();
    } catch (err) {
      const msg = (err as Error).message;
      for (const name of ['PORT', 'MQTT_URL', 'SECRET_KEY', 'DATABASE_URL']) expect(msg).toContain(name);
    }
  });

  it('reads OUTBOUND_ALLOW, refuses a bad entry, and refuses FIRMWARE_ALLOW_PRIVATE_URLS it replaced', () => {
    const dir = tmp();
    expect(loadConfig({ DATA_DIR: dir }).outboundAllow).toEqual([]);
    expect(
      loadConfig({ DATA_DIR: dir, OUTBOUND_ALLOW: ' fw.lan:8080, 10.20.0.0/16 ,,[fd00::1]:443' })
        .outboundAllow,
    ).toEqual(['fw.lan:8080', '10.20.0.0/16', '[fd00::1]:443']);
    expect(() => loadConfig({ DATA_DIR: dir, OUTBOUND_ALLOW: '10.0.0.0/33' })).toThrow(/OUTBOUND_ALLOW/);
    expect(() => loadConfig({ DATA_DIR: dir, FIRMWARE_ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      /OUTBOUND_ALLOW/,
    );
    expect(loadConfig({ DATA_DIR: dir, FIRMWARE_ALLOW_PRIVATE_URLS: 'false' }).outboundAllow).toEqual([]);
  });

  it('reads the port ranges of device hosts and tunnels, and refuses a range that is not one', () => {
    const dir = tmp();
    const c = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://iot.example.com' });
    expect(c.deviceHosts).toEqual({ ports: { min: 20000, max: 20999 }, address: 'iot.example.com' });
    expect(c.tunnels).toMatchObject({ port: 21100, ports: { min: 21000, max: 21099 }, idleMs: 600_000 });
    const set = loadConfig({
      DATA_DIR: dir,
      DEVICE_HOST_PORTS: ' 30000 - 30010 ',
      TUNNEL_PORTS: '40000-40000',
    });
    expect(set.deviceHosts.ports).toEqual({ min: 30000, max: 30010 });
    expect(set.tunnels.ports).toEqual({ min: 40000, max: 40000 });
    for (const bad of ['30010-30000', '0-10', '1-65536', '30000', 'a-b'])
      expect(() => loadConfig({ DATA_DIR: dir, DEVICE_HOST_PORTS: bad })).toThrow(/DEVICE_HOST_PORTS/);
    expect(() => loadConfig({ DATA_DIR: dir, TUNNEL_PORTS: '9-1' })).toThrow(/TUNNEL_PORTS.*21000-21099/);
  });
});
