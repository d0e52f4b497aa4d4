// The device simulator (apps/devsim) against the real server: downloads over HTTP with Range, the way a DTU does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualDevice } from '../../../../devsim/src/device';
import { newOtaStats, otaHandler } from '../../../../devsim/src/ota';
import { eventually } from '../../test/gateway-test-kit';
import { buildTestApp, type TestApp } from '../../test/app';
import {
  act,
  byDevice,
  createTask,
  data,
  otaFixture,
  taskDevices,
  taskUntil,
  untilOnline,
} from '../../test/ota-test-kit';

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // The download URLs of P/down/ota point at this test server instead of PUBLIC_URL.
  t.app.ota.options.downloadBase = () => base;
});
afterAll(async () => {
  // fetch (undici) leaves connections open that never carried a request; Node would wait for its headers
  // timeout (60 s) before the server closes.
  t.app.server.closeAllConnections();
  await t.close();
});

describe('devsim devices taking an upgrade from the server', () => {
  it('finish resumed downloads with a matching checksum; corrupted ones end in status 2', async () => {
    const admin = await t.adminToken();
    const sns = Array.from({ length: 8 }, (_, i) => `SIMOTA-${i + 1}`);
    const fx = await otaFixture(t, admin, admin, sns, { size: 100_000 });
    const resumed = newOtaStats();
    const corrupted = newOtaStats();
    const devices = fx.devices.map(
      (d, i) =>
        new VirtualDevice(
          { sn: d.sn, product_key: d.productKey, secret: d.secret },
          {
            url: `mqtt://127.0.0.1:${t.app.broker.port}`,
            info: { fw_version: '1.0.0' },
            configGet: false,
            handlers: {
              ota:
                i < 4
                  ? otaHandler({ interrupt: 1, updateMs: 0 }, resumed)
                  : otaHandler({ failDownload: 1, updateMs: 0 }, corrupted),
            },
          },
        ),
    );
    try {
      for (const d of devices) await d.connect();
      await untilOnline(t, admin, fx.productKey, 8);
      const task = await createTask(t, admin, {
        name: 'devsim',
        product_key: fx.productKey,
        version_id: fx.versionId,
        targets: { type: 'all' },
        policy: { retries: 0, failure_threshold: null },
      });
      await act(t, admin, task.id, 'start');
      const done = await taskUntil(t, admin, task.id, (x) => x.status === 'done', 20_000);
      expect(done).toMatchObject({ success_count: 4, fail_count: 4 });
      const rows = byDevice(await taskDevices(t, admin, task.id));
      for (const [i, sn] of sns.entries()) {
        if (i < 4) expect(rows.get(sn), sn).toMatchObject({ phase: 'succeeded', status: 4 });
        else
          expect(rows.get(sn), sn).toMatchObject({ phase: 'failed', status: 2, result: 'checksum mismatch' });
      }
      expect(resumed).toMatchObject({ resumed: 4, succeeded: 4, downloadBytes: 4 * fx.image.length });
      expect(corrupted).toMatchObject({ downloadFailed: 4, succeeded: 0 });
      // Each resumed device downloaded twice (the broken GET, then the Range GET); counts are written each second.
      await eventually(async () => {
        const now = byDevice(await taskDevices(t, admin, task.id));
        return sns.slice(0, 4).every((sn) => now.get(sn)?.downloads === 2) ? true : undefined;
      });
      // The upgraded devices report their new version; the platform's device rows follow.
      await eventually(async () => {
        const list = data<{ sn: string; fw_version: string }[]>(
          await t.inject({ method: 'GET', url: `/api/devices?product_key=${fx.productKey}`, token: admin }),
        );
        return list.filter((d) => d.fw_version === fx.version).length === 4 ? true : undefined;
      });
    } finally {
      await Promise.all(devices.map((d) => d.close()));
    }
  });
});
