import type { FastifyInstance } from 'fastify';
import { inArray } from 'drizzle-orm';
import fp from 'fastify-plugin';
import { devices } from '../devices/devices.table';
import { SHARE_NOTIFY_CHANNEL } from './shares.service';

/** How often the share audience cache is read in full anyway (a NOTIFY lost while the connection was up). */
const REFRESH_MS = 60_000;

/**
 * Keeps this instance's share audience cache (deps.caches.shares) true: a full read when the app is ready, then on
 * `share.changed` (this instance's writes) the named devices are dropped at once and read again; on PostgreSQL the
 * other instances' changes arrive on the `cellhub_share_changes` channel (their services NOTIFY inside the changing
 * transaction) and are handled alike, and after a lost connection everything is read again.
 */
export const sharesPlugin = fp(
  async (app: FastifyInstance) => {
    const { deps } = app;
    const cache = deps.caches.shares;
    const failed = (err: unknown) => deps.log.warn({ err }, 'shares: reading the share audience failed');
    const changed = (ids: number[] | '*') => {
      // Device-list counts are cached per viewer: a share changes what its receiver counts.
      deps.caches.deviceCounts.clear();
      if (ids === '*') {
        void cache.reloadAll(deps.db).catch(failed);
        return;
      }
      cache.drop(ids);
      void cache
        .reloadDevices(deps.db, ids)
        .then(async () => {
          const rows = await deps.db.select({ sn: devices.sn }).from(devices).where(inArray(devices.id, ids));
          if (rows.length > 0) deps.events.emit({ type: 'share.reread', sns: rows.map((r) => r.sn) });
        })
        .catch(failed);
    };
    const stops: (() => void)[] = [deps.events.on('share.changed', (e) => changed(e.deviceIds))];
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      await cache.reloadAll(deps.db);
      if (deps.channels.kind === 'postgres') {
        stops.push(
          deps.channels.listen(SHARE_NOTIFY_CHANNEL, (payload) => {
            if (payload === '*') return changed('*');
            const ids = payload
              .split(',')
              .map(Number)
              .filter((n) => Number.isInteger(n) && n > 0);
            changed(ids);
          }),
          deps.channels.onReconnect(() => changed('*')),
        );
      }
      timer = setInterval(() => void cache.reloadAll(deps.db).catch(failed), REFRESH_MS);
      timer.unref();
    });
    app.addHook('onClose', async () => {
      if (timer) clearInterval(timer);
      for (const stop of stops) stop();
    });
  },
  { name: 'shares' },
);
