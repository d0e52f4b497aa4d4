import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { VirtualDevice } from './device';
import { newOtaStats, type OtaOptions, otaHandler } from './ota';
import { startTestBroker, waitFor, type TestBroker } from './test-broker';

const IMAGE = randomBytes(50_000);
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface FileRequest {
  range?: string;
  ifRange?: string;
}

/** Serves IMAGE at /fw with Range and ETag the way the platform's download route does. */
async function startFileServer(): Promise<{ url: string; requests: FileRequest[]; close(): Promise<void> }> {
  const requests: FileRequest[] = [];
  const etag = `"${md5(IMAGE)}"`;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const range = req.headers.range;
    const ifRange = req.headers['if-range'] as string | undefined;
    requests.push({ range, ifRange });
    if (req.url?.startsWith('/flaky/')) {
      // /flaky/<n>: the first n requests break (a reset, then 503s), later ones are served.
      const key = req.url;
      const seen = (flaky.get(key) ?? 0) + 1;
      flaky.set(key, seen);
      if (seen <= Number(key.split('/')[2])) {
        if (seen === 1) req.socket.destroy();
        else res.writeHead(503).end();
        return;
      }
    } else if (req.url !== '/fw') {
      res.writeHead(403).end();
      return;
    }
    const m = range && (!ifRange || ifRange === etag) ? /^bytes=(\d+)-$/.exec(range) : null;
    if (m) {
      const start = Number(m[1]);
      res.writeHead(206, {
        etag,
        'content-range': `bytes ${start}-${IMAGE.length - 1}/${IMAGE.length}`,
        'content-length': IMAGE.length - start,
      });
      res.end(IMAGE.subarray(start));
      return;
    }
    res.writeHead(200, { etag, 'content-length': IMAGE.length });
    res.end(IMAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const flaky = new Map<string, number>();
let broker: TestBroker;
let files: Awaited<ReturnType<typeof startFileServer>>;
let n = 0;

beforeAll(async () => {
  broker = await startTestBroker();
  files = await startFileServer();
});
afterAll(async () => {
  await broker.close();
  await files.close();
});

/** A connected device with the OTA handler; returns it with its uplinks on P/up/ota. */
async function device(options: Partial<OtaOptions>) {
  const identity = { sn: `OTA${++n}`, product_key: 'pk_ota', secret: 's'.repeat(32) };
  const stats = newOtaStats();
  const d = new VirtualDevice(identity, {
    url: broker.url,
    info: { fw_version: '1.0.0' },
    configGet: false,
    handlers: { ota: otaHandler({ updateMs: 0, ...options }, stats) },
  });
  await d.connect();
  const statuses = () =>
    (broker.bodies('/up/ota', identity.sn) as { id: string; status: number; message?: string }[]).map(
      (b) => b.status,
    );
  const send = (id: string, extra: Record<string, unknown> = {}) =>
    broker.downlink(downTopic(identity.product_key, identity.sn, 'ota'), {
      id,
      version: '2.0.0',
      url: `${files.url}/fw`,
      size: IMAGE.length,
      checksum: md5(IMAGE),
      algorithm: 'md5',
      ...extra,
    });
  return { d, stats, statuses, send, identity };
}

describe('firmware upgrades', () => {
  it('accepts, downloads, checks the checksum, reports success and its new fw_version', async () => {
    const { d, stats, statuses, send, identity } = await device({});
    const before = files.requests.length;
    await send('1-1-1');
    await waitFor(() => statuses().includes(4));
    expect(statuses()).toEqual([5, 1, 4]);
    expect(files.requests.length - before).toBe(1);
    expect(stats).toMatchObject({ commands: 1, downloads: 1, succeeded: 1, downloadBytes: IMAGE.length });
    await waitFor(() => broker.bodies('/up/info', identity.sn).length === 2);
    expect(broker.bodies('/up/info', identity.sn).at(-1)).toEqual({ fw_version: '2.0.0' });
    // After a reboot (reconnect) it reports the new version at once.
    await d.close();
    await d.connect();
    await waitFor(() => broker.bodies('/up/info', identity.sn).length === 3);
    expect(broker.bodies('/up/info', identity.sn).at(-1)).toMatchObject({ fw_version: '2.0.0' });
    await d.close();
  });

  it('resumes a broken download with Range and If-Range, and ends with a matching checksum', async () => {
    const { d, stats, statuses, send } = await device({ interrupt: 1 });
    const before = files.requests.length;
    await send('1-2-1', { algorithm: 'sha256', checksum: sha256(IMAGE) });
    await waitFor(() => statuses().includes(4) || statuses().includes(2));
    expect(statuses()).toEqual([5, 1, 4]);
    const reqs = files.requests.slice(before);
    expect(reqs).toHaveLength(2);
    expect(reqs[0]).toEqual({ range: undefined, ifRange: undefined });
    expect(reqs[1]?.range).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(reqs[1]!.range!)?.[0])).toBeGreaterThan(0);
    expect(reqs[1]?.ifRange).toBe(`"${md5(IMAGE)}"`);
    expect(stats).toMatchObject({ resumed: 1, succeeded: 1, downloadBytes: IMAGE.length });
    await d.close();
  });

  it('reports a corrupted download as status 2 and never installs it', async () => {
    const { d, stats, statuses, send, identity } = await device({ failDownload: 1 });
    await send('1-3-1');
    await waitFor(() => statuses().includes(2));
    expect(statuses()).toEqual([5, 2]);
    expect(broker.bodies('/up/ota', identity.sn).at(-1)).toMatchObject({ message: 'checksum mismatch' });
    expect(stats).toMatchObject({ downloadFailed: 1, succeeded: 0 });
    expect(d.fwVersion).toBeUndefined();
    await d.close();
  });

  it('reports a wrong size, an unreachable file and a failed update with their statuses', async () => {
    const size = await device({});
    await size.send('1-4-1', { size: IMAGE.length + 1 });
    await waitFor(() => size.statuses().includes(2));
    const wrongUrl = await device({});
    await wrongUrl.send('1-5-1', { url: `${files.url}/elsewhere` });
    await waitFor(() => wrongUrl.statuses().includes(2));
    expect(broker.bodies('/up/ota', wrongUrl.identity.sn).at(-1)).toMatchObject({
      message: 'download answered 403',
    });
    const update = await device({ failUpdate: 1 });
    await update.send('1-6-1');
    await waitFor(() => update.statuses().includes(3));
    expect(update.statuses()).toEqual([5, 1, 3]);
    for (const x of [size, wrongUrl, update]) await x.d.close();
  });

  it('retries a download that breaks on the network or answers 5xx, and gives up after its tries', async () => {
    const lucky = await device({ retryDelayMs: 10 });
    await lucky.send('1-9-1', { url: `${files.url}/flaky/2` });
    await waitFor(() => lucky.statuses().includes(4) || lucky.statuses().includes(2));
    expect(lucky.statuses()).toEqual([5, 1, 4]);
    expect(lucky.stats).toMatchObject({ downloadRetries: 2, succeeded: 1 });
    const unlucky = await device({ retryDelayMs: 10 });
    await unlucky.send('1-10-1', { url: `${files.url}/flaky/3` });
    await waitFor(() => unlucky.statuses().includes(2));
    expect(broker.bodies('/up/ota', unlucky.identity.sn).at(-1)).toMatchObject({
      message: 'download answered 503',
    });
    expect(unlucky.stats).toMatchObject({ downloadRetries: 2, downloadFailed: 1 });
    for (const x of [lucky, unlucky]) await x.d.close();
  });

  it('refuses as told, and answers a repeated upgrade id with where it ended instead of starting over', async () => {
    const refusing = await device({ refuse: 1 });
    const before = files.requests.length;
    await refusing.send('1-7-1');
    await waitFor(() => refusing.statuses().includes(6));
    expect(refusing.statuses()).toEqual([6]);
    expect(files.requests.length).toBe(before);

    const ok = await device({});
    await ok.send('1-8-1');
    await waitFor(() => ok.statuses().includes(4));
    await ok.send('1-8-1');
    await waitFor(() => ok.statuses().length === 4);
    expect(ok.statuses()).toEqual([5, 1, 4, 4]);
    expect(ok.stats).toMatchObject({ commands: 1, duplicates: 1, downloads: 1 });
    // A new id (a retry of the platform) is a new upgrade.
    await ok.send('1-8-2');
    await waitFor(() => ok.statuses().length === 7);
    expect(ok.stats.commands).toBe(2);
    for (const x of [refusing, ok]) await x.d.close();
  });

  it('draws its fate per upgrade from the ratios, the same way for the same seed', async () => {
    const outcomes = async (seed: number) => {
      const { d, statuses, send } = await device({ refuse: 0.5, seed });
      const out: number[] = [];
      for (let i = 1; i <= 8; i++) {
        const before = statuses().length;
        await send(`9-9-${i}`);
        await waitFor(() =>
          statuses()
            .slice(before)
            .some((s) => s === 4 || s === 6),
        );
        out.push(statuses().at(-1)!);
      }
      await d.close();
      return out;
    };
    const first = await outcomes(7);
    expect(first).toContain(4);
    expect(first).toContain(6);
    n -= 1; // the same device again
    expect(await outcomes(7)).toEqual(first);
  });
});
