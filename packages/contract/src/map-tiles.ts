/**
 * Map tiles of the device location map: which tile server the console draws, a system setting (admin) with a
 * default from the environment (`MAP_TILES`, `MAP_TIANDITU_KEY`; docs/configuration.md).
 *
 * - `GET /api/system/settings/map` (admin): the setting, the Tianditu key masked (SECRET_MASK when stored).
 * - `PUT /api/system/settings/map` (admin): replace it. A key sent '' or SECRET_MASK keeps the stored one; the key is
 *   stored encrypted at rest. 10113 with the field when `custom` has no URL or `tianditu` has no key.
 * - `GET /api/map/tiles` (signed in): what the console draws, the layers' URL templates with the key filled in
 *   (a Tianditu browser key is meant to travel to browsers; the admin view still never shows it).
 *
 * Presets: `osm` (OpenStreetMap, the default), `amap` (高德, GCJ-02 coordinates: the console shifts the marker),
 * `tianditu` (天地图, needs a key), `custom` (an http(s) URL template with {z}, {x}, {y}, optionally {s}) and `none`
 * (no tiles: the console shows the coordinates and a link). The server's Content-Security-Policy allows exactly the
 * chosen tile hosts (docs/api-conventions.md).
 */
import { z } from 'zod';
import { SECRET_MASK } from './platforms';
import { text } from './text';

export { SECRET_MASK };

export const MAP_TILE_PROVIDERS = ['osm', 'amap', 'tianditu', 'custom', 'none'] as const;
export type MapTileProvider = (typeof MAP_TILE_PROVIDERS)[number];

/** Placeholders a custom template may hold; {z}, {x} and {y} are required. */
const PLACEHOLDER = /\{([a-z]+)\}/g;
const ALLOWED_PLACEHOLDERS = new Set(['z', 'x', 'y', 's', 'r']);
const AUTHORITY = /^https?:\/\/([^/?#]*)/i;
const HOST_PORT =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Why `url` is not a usable tile URL template, or undefined when it is: http(s) only, {z}, {x} and {y} present, no
 * other placeholder than {s} (subdomain) and {r} (retina), {s} only in the host, no credentials in the URL.
 */
export function tileTemplateProblem(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return 'tile_url_scheme';
  for (const p of ['{z}', '{x}', '{y}']) if (!url.includes(p)) return 'tile_url_placeholders';
  for (const [, name] of url.matchAll(PLACEHOLDER)) {
    if (!ALLOWED_PLACEHOLDERS.has(name!)) return 'tile_url_placeholders';
  }
  const authority = AUTHORITY.exec(url)?.[1] ?? '';
  // No credentials in a URL every browser receives; a host name, IPv4 or [IPv6], an optional port.
  if (!HOST_PORT.test(authority.replace(/\{s\}/g, 'a'))) return 'tile_url_invalid';
  const afterHost = url.slice(url.indexOf('//') + 2 + authority.length);
  if (afterHost.includes('{s}')) return 'tile_url_placeholders';
  if (/\s/.test(url)) return 'tile_url_invalid';
  return undefined;
}

/** A Tianditu key is 32 hexadecimal characters (the console of lbs.tianditu.gov.cn issues them). */
const TIANDITU_KEY = /^[0-9a-fA-F]{32}$/;

export const mapTileSettings = z.object({
  provider: z.enum(MAP_TILE_PROVIDERS),
  custom_url: z
    .union([
      z.literal(''),
      text()
        .trim()
        .max(512)
        .superRefine((v, ctx) => {
          const problem = tileTemplateProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    ])
    .default(''),
  tianditu_key: z
    .union([z.literal(''), z.literal(SECRET_MASK), text().trim().regex(TIANDITU_KEY, 'tianditu_key_rule')])
    .default(''),
});
export type MapTileSettings = z.infer<typeof mapTileSettings>;
export type MapTileSettingsBody = z.input<typeof mapTileSettings>;

/** The admin view: the key masked; `source` says whether an admin saved it or it is the environment's default. */
export const mapTileSettingsView = z.object({
  provider: z.enum(MAP_TILE_PROVIDERS),
  custom_url: text(),
  tianditu_key: text(),
  source: z.enum(['setting', 'env']),
});
export type MapTileSettingsView = z.infer<typeof mapTileSettingsView>;

/** One tile layer: a Leaflet URL template and its {s} subdomains ('' when it has none). */
export const tileLayer = z.object({ url: text(), subdomains: text() });
export type TileLayer = z.infer<typeof tileLayer>;

/** What the console draws: no layers for `none`. `attribution` is plain text. */
export const mapTileConfig = z.object({
  provider: z.enum(MAP_TILE_PROVIDERS),
  layers: z.array(tileLayer),
  attribution: text(),
  max_zoom: z.number().int(),
  /** AMap tiles are drawn in GCJ-02: the console shifts WGS-84 positions inside mainland China. */
  gcj02: z.boolean(),
});
export type MapTileConfig = z.infer<typeof mapTileConfig>;

/** The layers of a setting; `key` is the Tianditu key in clear (server side only). */
export function tileConfigOf(provider: MapTileProvider, customUrl: string, key: string): MapTileConfig {
  switch (provider) {
    case 'osm':
      return {
        provider,
        layers: [{ url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', subdomains: '' }],
        attribution: '© OpenStreetMap contributors',
        max_zoom: 19,
        gcj02: false,
      };
    case 'amap':
      return {
        provider,
        layers: [
          {
            url: 'https://webrd0{s}.is.autonavi.com/appmaptile?lang=zh_cn&size=1&scale=1&style=8&x={x}&y={y}&z={z}',
            subdomains: '1234',
          },
        ],
        attribution: '© 高德地图 AutoNavi',
        max_zoom: 18,
        gcj02: true,
      };
    case 'tianditu': {
      const wmts = (layer: string) =>
        `https://t{s}.tianditu.gov.cn/${layer}_w/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}` +
        `&STYLE=default&TILEMATRIXSET=w&FORMAT=tiles&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}&tk=${encodeURIComponent(key)}`;
      return {
        provider,
        // The base map, then its labels (Tianditu draws them as a separate layer).
        layers: [
          { url: wmts('vec'), subdomains: '01234567' },
          { url: wmts('cva'), subdomains: '01234567' },
        ],
        attribution: '© 天地图 Tianditu',
        max_zoom: 18,
        gcj02: false,
      };
    }
    case 'custom':
      return {
        provider,
        layers: customUrl ? [{ url: customUrl, subdomains: customUrl.includes('{s}') ? 'abc' : '' }] : [],
        attribution: (AUTHORITY.exec(customUrl)?.[1] ?? '').replace(/\{s\}\./g, ''),
        max_zoom: 19,
        gcj02: false,
      };
    case 'none':
      return { provider, layers: [], attribution: '', max_zoom: 19, gcj02: false };
  }
}

/**
 * The Content-Security-Policy source of a layer's URL template: its scheme and host, a host label holding {s}
 * becoming `*` (so `https://webrd0{s}.is.autonavi.com/...` gives `https://*.is.autonavi.com`).
 */
export function cspSourceOf(template: string): string {
  const m = /^(https?):\/\/([^/?#]+)/i.exec(template);
  if (!m) return "'none'";
  // Validated templates only reach here; a host that could end the directive is refused all the same.
  if (!/^[A-Za-z0-9.{}:[\]-]+$/.test(m[2]!)) return "'none'";
  const host = m[2]!
    .split('.')
    .map((label) => (label.includes('{s}') ? '*' : label))
    .join('.');
  return `${m[1]!.toLowerCase()}://${host.toLowerCase()}`;
}
