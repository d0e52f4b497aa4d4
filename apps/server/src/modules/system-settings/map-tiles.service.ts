import {
  MAP_TILE_PROVIDERS,
  type MapTileConfig,
  type MapTileProvider,
  type MapTileSettings,
  type MapTileSettingsView,
  SECRET_MASK,
  cspSourceOf,
  tileConfigOf,
} from '@cellhub/contract/map-tiles';
import type { Config } from '../../config';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { openToSignedIn, requireAdmin } from '../../lib/authz';
import type { SecretBox } from '../../lib/crypto';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { getSettings, setSetting } from './system-settings.service';

/** Where the map setting lives in system_settings; the Tianditu key is sealed like every other secret. */
export const MAP_SETTING_KEYS = {
  provider: 'map.provider',
  custom_url: 'map.custom_url',
  tianditu_key: 'map.tianditu_key',
} as const;

export interface MapTiles {
  provider: MapTileProvider;
  customUrl: string;
  /** In clear: for the tile URLs and this module only. */
  tiandituKey: string;
  source: 'setting' | 'env';
}

/**
 * The map tiles in force: the saved setting when an admin saved one, the environment's default (MAP_TILES,
 * MAP_TIANDITU_KEY) otherwise. A saved key wins over the environment's.
 */
export async function loadMapTiles(db: DbOrTx, box: SecretBox, config: Config): Promise<MapTiles> {
  const stored = await getSettings(db, box, Object.values(MAP_SETTING_KEYS));
  const saved = stored.get(MAP_SETTING_KEYS.provider);
  const provider = (MAP_TILE_PROVIDERS as readonly string[]).includes(saved ?? '')
    ? (saved as MapTileProvider)
    : undefined;
  const env = config.mapTiles;
  return {
    provider: provider ?? env.provider,
    customUrl: provider ? (stored.get(MAP_SETTING_KEYS.custom_url) ?? '') : env.customUrl,
    tiandituKey: stored.get(MAP_SETTING_KEYS.tianditu_key) || env.tiandituKey,
    source: provider ? 'setting' : 'env',
  };
}

const view = (m: MapTiles): MapTileSettingsView => ({
  provider: m.provider,
  custom_url: m.customUrl,
  tianditu_key: m.tiandituKey ? SECRET_MASK : '',
  source: m.source,
});

/** GET /api/system/settings/map (admin): the setting, the key masked. */
export async function getMapTileSettings(deps: Deps, actor: Actor): Promise<MapTileSettingsView> {
  requireAdmin(actor);
  return view(await loadMapTiles(deps.db, deps.box, deps.config));
}

/**
 * PUT /api/system/settings/map (admin). A key sent '' or SECRET_MASK keeps the one in force. 10113 when `custom`
 * has no URL or `tianditu` has no key. Stored and audited in one transaction (the audit names fields, not the key).
 */
export async function updateMapTileSettings(
  deps: Deps,
  actor: Actor,
  input: MapTileSettings,
): Promise<MapTileSettingsView> {
  requireAdmin(actor);
  await deps.db.transaction(async (tx) => {
    const before = await loadMapTiles(tx, deps.box, deps.config);
    const newKey = input.tianditu_key !== '' && input.tianditu_key !== SECRET_MASK ? input.tianditu_key : '';
    if (input.provider === 'custom' && !input.custom_url) {
      throw new AppError(10113, 400, undefined, [{ field: 'custom_url', message: 'required' }]);
    }
    if (input.provider === 'tianditu' && !newKey && !before.tiandituKey) {
      throw new AppError(10113, 400, undefined, [{ field: 'tianditu_key', message: 'required' }]);
    }
    const changed: string[] = [];
    if (input.provider !== before.provider || before.source === 'env') changed.push('provider');
    if (input.custom_url !== before.customUrl) changed.push('custom_url');
    await setSetting(tx, deps.box, MAP_SETTING_KEYS.provider, input.provider);
    await setSetting(tx, deps.box, MAP_SETTING_KEYS.custom_url, input.custom_url);
    if (newKey) {
      if (newKey !== before.tiandituKey) changed.push('tianditu_key');
      await setSetting(tx, deps.box, MAP_SETTING_KEYS.tianditu_key, newKey, { secret: true });
    }
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'system_settings_update',
      target: 'map',
      ip: actor.ip,
      detail: { changed },
    });
  });
  return getMapTileSettings(deps, actor);
}

/** GET /api/map/tiles (any signed-in user): the layers the console draws, key filled in. */
export async function getMapTileConfig(deps: Deps, actor: Actor): Promise<MapTileConfig> {
  openToSignedIn(actor);
  const m = await loadMapTiles(deps.db, deps.box, deps.config);
  return tileConfigOf(m.provider, m.customUrl, m.tiandituKey);
}

/** The CSP img-src sources of the tiles in force: their hosts, none for `none`. */
export function tileCspSources(m: Pick<MapTiles, 'provider' | 'customUrl'>): string[] {
  const { layers } = tileConfigOf(m.provider, m.customUrl, '');
  return [...new Set(layers.map((l) => cspSourceOf(l.url)))];
}

/**
 * The tile hosts the Content-Security-Policy allows, kept in memory: read again at most every `ttlMs` (so another
 * instance's change arrives within that), and at once after this instance saves the setting. If the database cannot
 * be read, the last known hosts stay (the environment's default before the first read).
 */
export class TileCspSources {
  private sources: string[];
  private readAt = -Infinity;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'box' | 'config' | 'log'>,
    private readonly ttlMs = 10_000,
  ) {
    this.sources = tileCspSources(deps.config.mapTiles);
  }

  /** Forget the cached hosts: the next answer reads them again. */
  invalidate(): void {
    this.readAt = -Infinity;
  }

  async current(): Promise<string[]> {
    if (performance.now() - this.readAt >= this.ttlMs) {
      this.pending ??= this.read().finally(() => {
        this.pending = undefined;
      });
      await this.pending;
    }
    return this.sources;
  }

  private async read(): Promise<void> {
    try {
      this.sources = tileCspSources(await loadMapTiles(this.deps.db, this.deps.box, this.deps.config));
      this.readAt = performance.now();
    } catch (err) {
      this.readAt = performance.now();
      this.deps.log.warn({ err }, 'map tile hosts for the CSP could not be read; keeping the last known');
    }
  }
}
