// Test support (not shipped): a product with devices, a firmware version, tasks, and devices that take upgrades
// over the real broker and download through the real route.
import { createHash, randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import type { OtaDeviceItem, OtaTaskCreateBody, OtaTaskDetail } from '@cellhub/contract/ota';
import { downTopic, type OtaDown } from '@cellhub/contract/protocol';
import { connectDevice, createDevices, eventually, type TestDevice, up } from './gateway-test-kit';
import type { TestApp } from './app';

export const data = <T>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

const BOUNDARY = '----cellhubOtaTestBoundary';

/** Random bytes that look like a binary image to the firmware store's type check. */
export function firmwareImage(size: number): Buffer {
  const b = randomBytes(size);
  b.writeUInt32BE(0x7f454c46, 0);
  return b;
}

export const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

export interface OtaFixture {
  productKey: string;
  devices: TestDevice[];
  firmwareId: number;
  versionId: number;
  version: string;
  image: Buffer;
}

/**
 * A product of `owner` with devices `sns` (reporting nothing yet) and, uploaded by the admin, a firmware for it
 * with one version of `size` bytes.
 */
export async function otaFixture(
  t: TestApp,
  ownerToken: string,
  adminToken: string,
  sns: string[],
  opts: { version?: string; size?: number; public?: boolean } = {},
): Promise<OtaFixture> {
  const devices = await createDevices(t, ownerToken, sns, { name: 'OTA DTU' });
  const productKey = devices[0]!.productKey;
  const fw = data<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: '/api/firmware',
      token: adminToken,
      payload: { name: 'DTU main', product_key: productKey, type: 1, public: opts.public ?? false },
    }),
  );
  const image = firmwareImage(opts.size ?? 64 * 1024);
  const version = opts.version ?? '2.0.0';
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="version"\r\n\r\n${version}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="algorithm"\r\n\r\nmd5\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="dtu-${version}.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const v = data<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: `/api/firmware/${fw.id}/versions`,
      token: adminToken,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: Buffer.concat([Buffer.from(head), image, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
    }),
  );
  return { productKey, devices, firmwareId: fw.id, versionId: v.id, version, image };
}

export async function createTask(t: TestApp, token: string, body: OtaTaskCreateBody): Promise<OtaTaskDetail> {
  return data<OtaTaskDetail>(await t.inject({ method: 'POST', url: '/api/ota/tasks', token, payload: body }));
}

export async function taskDetail(t: TestApp, token: string, id: number): Promise<OtaTaskDetail> {
  return data<OtaTaskDetail>(await t.inject({ method: 'GET', url: `/api/ota/tasks/${id}`, token }));
}

export async function taskDevices(t: TestApp, token: string, id: number): Promise<OtaDeviceItem[]> {
  return data<OtaDeviceItem[]>(
    await t.inject({ method: 'GET', url: `/api/ota/tasks/${id}/devices?per_page=1000`, token }),
  );
}

export async function act(t: TestApp, token: string, id: number, action: 'start' | 'pause' | 'cancel') {
  return t.inject({ method: 'POST', url: `/api/ota/tasks/${id}/${action}`, token });
}

/** Waits until the task's detail satisfies `pred` (the engine runs on its own timer). */
export function taskUntil(
  t: TestApp,
  token: string,
  id: number,
  pred: (d: OtaTaskDetail) => boolean,
  timeoutMs = 10_000,
): Promise<OtaTaskDetail> {
  return eventually(async () => {
    const d = await taskDetail(t, token, id);
    return pred(d) ? d : undefined;
  }, timeoutMs);
}

/**
 * Waits until `count` devices of the product are online in `t`'s device list (on another instance than the one
 * they connected to, that is the cross-instance presence too).
 */
export function untilOnline(
  t: TestApp,
  token: string,
  productKey: string,
  count: number,
  timeoutMs = 5000,
): Promise<true> {
  return eventually(async () => {
    const list = data<{ online: number }[]>(
      await t.inject({ method: 'GET', url: `/api/devices?per_page=1000&product_key=${productKey}`, token }),
    );
    return list.filter((d) => d.online === 1).length === count ? true : undefined;
  }, timeoutMs);
}

/**
 * An OtaTestDevice on `t` (downloads go to `t`) for each of `devices`, with `behaviour`, connected one after
 * another (each subscribed before the next connects) to `t`'s broker or to `url`.
 */
export async function connectFleet(
  t: TestApp,
  devices: TestDevice[],
  opts: { behaviour?: Behaviour; url?: string } = {},
): Promise<OtaTestDevice[]> {
  const out: OtaTestDevice[] = [];
  try {
    for (const d of devices) {
      const dev = new OtaTestDevice(t, d);
      if (opts.behaviour) dev.behaviour = opts.behaviour;
      out.push(dev);
      await dev.connect(opts.url);
    }
  } catch (err) {
    await Promise.all(out.map((d) => d.disconnect()));
    throw err;
  }
  return out;
}

/** What a simulated device does with an upgrade command. */
export type Behaviour = 'succeed' | 'refuse' | 'fail-download' | 'fail-update' | 'silent' | 'accept-only';

/**
 * A device on the real broker that takes `P/down/ota`: reports 5, downloads the file through the real route
 * (by injecting the URL's path), checks the MD5, reports 1 and 4 and its new fw_version on `P/up/info`, or fails
 * as told. Records every command it got.
 */
export class OtaTestDevice {
  client: MqttClient | undefined;
  readonly commands: OtaDown[] = [];
  readonly downloads: { status: number; bytes: number }[] = [];
  behaviour: Behaviour = 'succeed';
  fwVersion: string;

  constructor(
    private readonly t: TestApp,
    readonly device: TestDevice,
    fwVersion = '1.0.0',
  ) {
    this.fwVersion = fwVersion;
  }

  get sn(): string {
    return this.device.sn;
  }

  /**
   * Connects to the app's embedded broker, or to `url` (an external broker). With `subscribe: false` it subscribes
   * only when `subscribe()` is called (a device that takes its time between CONNECT and SUBSCRIBE).
   */
  async connect(
    url = `mqtt://127.0.0.1:${this.t.app.broker.port}`,
    opts: { subscribe?: boolean } = {},
  ): Promise<void> {
    const c = await connectDevice(url, this.device);
    this.client = c;
    c.on('message', (topic, payload) => {
      if (topic !== downTopic(this.device.productKey, this.device.sn, 'ota')) return;
      const cmd = JSON.parse(payload.toString()) as OtaDown;
      this.commands.push(cmd);
      void this.handle(cmd).catch(() => undefined);
    });
    if (opts.subscribe !== false) await this.subscribe();
    await c.publishAsync(up(this.device, 'status'), '{"online":1}', { qos: 1 });
    await c.publishAsync(up(this.device, 'info'), JSON.stringify({ fw_version: this.fwVersion }), { qos: 1 });
  }

  /** Subscribes to the device's `P/down/#`. */
  async subscribe(): Promise<void> {
    await this.client!.subscribeAsync(`dev/${this.device.productKey}/${this.device.sn}/down/#`, { qos: 1 });
  }

  async disconnect(): Promise<void> {
    await this.client?.endAsync(true);
    this.client = undefined;
  }

  report(id: string, status: number, extra: { progress?: number; message?: string } = {}): Promise<unknown> {
    return this.client!.publishAsync(up(this.device, 'ota'), JSON.stringify({ id, status, ...extra }), {
      qos: 1,
    });
  }

  async download(url: string, headers: Record<string, string> = {}) {
    const res = await this.t.app.inject({ method: 'GET', url: new URL(url).pathname, headers });
    this.downloads.push({ status: res.statusCode, bytes: res.rawPayload.length });
    return res;
  }

  private async handle(cmd: OtaDown): Promise<void> {
    switch (this.behaviour) {
      case 'silent':
        return;
      case 'refuse':
        await this.report(cmd.id, 6, { message: 'battery low' });
        return;
      case 'accept-only':
        await this.report(cmd.id, 5);
        return;
    }
    await this.report(cmd.id, 5);
    if (this.behaviour === 'fail-download') {
      await this.report(cmd.id, 2, { message: 'checksum mismatch' });
      return;
    }
    const res = await this.download(cmd.url);
    if (res.statusCode !== 200 || md5(res.rawPayload) !== cmd.checksum) {
      await this.report(cmd.id, 2, { message: `download ${res.statusCode}` });
      return;
    }
    await this.report(cmd.id, 1, { progress: 100 });
    if (this.behaviour === 'fail-update') {
      await this.report(cmd.id, 3, { message: 'flash write error' });
      return;
    }
    this.fwVersion = cmd.version;
    await this.report(cmd.id, 4);
    await this.client!.publishAsync(up(this.device, 'info'), JSON.stringify({ fw_version: cmd.version }), {
      qos: 1,
    });
  }
}

export const byDevice = (rows: OtaDeviceItem[]) => new Map(rows.map((r) => [r.devicekey, r]));
