import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { mapTileConfig, mapTileSettings, mapTileSettingsView } from '@cellhub/contract/map-tiles';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getMapTileConfig, getMapTileSettings, updateMapTileSettings } from './map-tiles.service';

/** Map tiles: the admin setting (system settings > Map) and what every signed-in console draws. docs/configuration.md. */
export async function mapTilesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['system-settings'];
  const view = responses(mapTileSettingsView, ...SIGNED_IN);

  r.get(
    '/api/system/settings/map',
    {
      config: { auth: 'admin' },
      schema: { tags, summary: 'Map tile source (Tianditu key masked)', response: view },
    },
    async (req) => ok(await getMapTileSettings(app.deps, actorOf(req))),
  );

  r.put(
    '/api/system/settings/map',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        summary:
          'Replace the map tile source; a key sent blank or masked keeps the stored one. 10113 when custom has ' +
          'no URL or tianditu no key. The Content-Security-Policy follows at once on this server.',
        body: mapTileSettings,
        response: view,
      },
    },
    async (req) => {
      const saved = await updateMapTileSettings(app.deps, actorOf(req), req.body);
      app.tileCspSources.invalidate();
      return ok(saved);
    },
  );

  r.get(
    '/api/map/tiles',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        summary:
          'The tile layers the console draws (URL templates, plain-text attribution); none when offline',
        response: responses(mapTileConfig, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getMapTileConfig(app.deps, actorOf(req))),
  );
}
