import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK, tileTemplateProblem } from '@cellhub/contract/map-tiles';
import { loadConfig } from '../../config';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { systemSettings } from './system-settings.table';

const KEY = '0123456789abcdef0123456789abcdef';

let t: TestApp;
let admin: string;
let user: { uid: number; token: string };

beforeAll(async () => {
  // The environment's default is AMap here, so "before anything is saved" is not just the built-in default.
  t = await buildTestApp({ config: { mapTiles: { provider: 'amap', customUrl: '', tiandituKey: '' } } });
  admin = await t.adminToken();
  user = await t.createUser();
});
afterAll(() => t?.close());

const put = (payload: Record<string, unknown>, token = admin) =>
  t.inject({ method: 'PUT', url: '/api/system/settings/map', token, payload });
const ok = <T = Record<string, unknown>>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};
const tiles = async () =>
  ok<{ provider: string; layers: { url: string }[]; attribution: string; gcj02: boolean }>(
    await t.inject({ method: 'GET', url: '/api/map/tiles', token: user.token }),
  );
const imgSrc = async () => {
  // The console's index (or its 404 when the console is not built) carries the policy like every answer.
  const res = await t.inject({ method: 'GET', url: '/' });
  return /img-src ([^;]*)/.exec(String(res.headers['content-security-policy']))![1]!;
};
const field = (res: Parameters<typeof errorOf>[0]) => {
  const e = errorOf(res);
  return { code: e.code, fields: (e.details as { field: string }[]).map((d) => d.field) };
};

describe('map tiles setting', () => {
  it('starts from the environment default and the CSP allows exactly its hosts', async () => {
    const view = ok(await t.inject({ method: 'GET', url: '/api/system/settings/map', token: admin }));
    expect(view).toEqual({ provider: 'amap', custom_url: '', tianditu_key: '', source: 'env' });
    const config = await tiles();
    expect(config.provider).toBe('amap');
    expect(config.gcj02).toBe(true);
    expect(config.attribution).not.toMatch(/</);
    const src = await imgSrc();
    expect(src).toContain('https://*.is.autonavi.com');
    expect(src).not.toContain('openstreetmap');
  });

  it('is for admins only (10108); any signed-in user reads the tiles, nobody signed out', async () => {
    const read = await t.inject({ method: 'GET', url: '/api/system/settings/map', token: user.token });
    expect(errorOf(read).code).toBe(10108);
    expect(errorOf(await put({ provider: 'osm' }, user.token)).code).toBe(10108);
    expect((await tiles()).provider).toBe('amap');
    const anonymous = await t.inject({ method: 'GET', url: '/api/map/tiles' });
    expect(anonymous.statusCode).toBe(403);
  });

  it('refuses a custom URL that is not http(s), lacks {z}/{x}/{y} or is missing (10113 on custom_url)', async () => {
    for (const custom_url of [
      'ftp://tiles.example.com/{z}/{x}/{y}.png',
      'javascript:alert(1)//{z}/{x}/{y}',
      'https://tiles.example.com/{z}/{x}.png',
      'https://tiles.example.com/{z}/{x}/{y}.png?u={user}',
      'https://user:pw@tiles.example.com/{z}/{x}/{y}.png',
      'https://tiles.example.com/{s}/{z}/{x}/{y}.png',
      "https://t.example.com;script-src 'unsafe-inline'/{z}/{x}/{y}",
    ]) {
      expect(field(await put({ provider: 'custom', custom_url })), custom_url).toEqual({
        code: 10113,
        fields: ['custom_url'],
      });
    }
    expect(field(await put({ provider: 'custom', custom_url: '' }))).toEqual({
      code: 10113,
      fields: ['custom_url'],
    });
  });

  it('saves a custom template; the CSP follows at once', async () => {
    const custom_url = 'https://{s}.tiles.example.com/dark/{z}/{x}/{y}.png';
    const view = ok(await put({ provider: 'custom', custom_url }));
    expect(view).toMatchObject({ provider: 'custom', custom_url, source: 'setting' });
    expect((await tiles()).layers).toEqual([{ url: custom_url, subdomains: 'abc' }]);
    const src = await imgSrc();
    expect(src).toContain('https://*.tiles.example.com');
    expect(src).not.toContain('autonavi');
  });

  it('needs a Tianditu key, stores it sealed and never answers it to the admin view', async () => {
    expect(field(await put({ provider: 'tianditu' }))).toEqual({ code: 10113, fields: ['tianditu_key'] });
    expect(field(await put({ provider: 'tianditu', tianditu_key: 'not-a-key' }))).toEqual({
      code: 10113,
      fields: ['tianditu_key'],
    });
    const res = await put({ provider: 'tianditu', tianditu_key: KEY });
    expect(ok(res)).toMatchObject({ provider: 'tianditu', tianditu_key: SECRET_MASK });
    expect(res.body).not.toContain(KEY);
    const again = await t.inject({ method: 'GET', url: '/api/system/settings/map', token: admin });
    expect(again.body).not.toContain(KEY);
    const [row] = await t.app.deps.db
      .select()
      .from(systemSettings)
      .where(eq(systemSettings.key, 'map.tianditu_key'));
    expect(row!.secret).toBe(true);
    expect(row!.value).not.toContain(KEY);
    // The browser draws the tiles with it: the layers carry it, the CSP allows Tianditu's hosts.
    const config = await tiles();
    expect(config.layers).toHaveLength(2);
    expect(config.layers[0]!.url).toContain(`tk=${KEY}`);
    expect(await imgSrc()).toContain('https://*.tianditu.gov.cn');
    // Sent back masked or blank, the stored key stays.
    ok(await put({ provider: 'tianditu', tianditu_key: SECRET_MASK }));
    ok(await put({ provider: 'tianditu', tianditu_key: '' }));
    expect((await tiles()).layers[0]!.url).toContain(`tk=${KEY}`);
  });

  it('offline: no layers and no outside host in the CSP', async () => {
    ok(await put({ provider: 'none' }));
    expect(await tiles()).toMatchObject({ provider: 'none', layers: [] });
    expect((await imgSrc()).trim()).toBe("'self' data: blob:");
  });
});

describe('MAP_TILES', () => {
  const env = (vars: Record<string, string>) =>
    loadConfig({ SECRET_KEY: 'k'.repeat(32), DATA_DIR: t.dataDir, ...vars }).mapTiles;
  it('takes a preset, a URL template, and refuses anything else', () => {
    expect(env({})).toEqual({ provider: 'osm', customUrl: '', tiandituKey: '' });
    expect(env({ MAP_TILES: 'none' }).provider).toBe('none');
    expect(env({ MAP_TILES: 'https://t.example.com/{z}/{x}/{y}.png' })).toMatchObject({
      provider: 'custom',
      customUrl: 'https://t.example.com/{z}/{x}/{y}.png',
    });
    expect(env({ MAP_TILES: 'tianditu', MAP_TIANDITU_KEY: KEY })).toMatchObject({ tiandituKey: KEY });
    expect(() => env({ MAP_TILES: 'tianditu' })).toThrow(/MAP_TIANDITU_KEY/);
    expect(() => env({ MAP_TILES: 'google' })).toThrow(/MAP_TILES/);
    expect(() => env({ MAP_TILES: 'custom' })).toThrow(/MAP_TILES/);
    expect(tileTemplateProblem('http://10.0.0.5:8080/tiles/{z}/{x}/{y}.png')).toBeUndefined();
  });
});
