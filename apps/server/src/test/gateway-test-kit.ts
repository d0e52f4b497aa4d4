import { createHmac } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { upTopic, type UpKind } from '@cellhub/contract/protocol';
import type { TestApp } from './app';

export interface TestDevice {
  sn: string;
  productKey: string;
  secret: string;
}

/** Creates a product (optionally with properties) and devices through the API, returning their secrets. */
export async function createDevices(
  t: TestApp,
  token: string,
  sns: string[],
  product: Record<string, unknown> = { name: 'Test DTU' },
): Promise<TestDevice[]> {
  const p = await t.inject({ method: 'POST', url: '/api/products', token, payload: product });
  if (p.statusCode !== 200) throw new Error(p.body);
  const productKey = (p.json() as { data: { product_key: string } }).data.product_key;
  const d = await t.inject({
    method: 'POST',
    url: '/api/devices',
    token,
    payload: { product_key: productKey, sn: sns },
  });
  if (d.statusCode !== 200) throw new Error(d.body);
  const out: TestDevice[] = [];
  for (const sn of sns) {
    const r = await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token });
    out.push({ sn, productKey, secret: (r.json() as { data: { secret: string } }).data.secret });
  }
  return out;
}

export const hmacPassword = (d: TestDevice, ms: number): string =>
  `hmac:${ms}:${createHmac('sha256', d.secret).update(`${d.sn}:${ms}`).digest('hex')}`;

/** Connects as the device (clientId = username = sn). Rejects with the CONNACK error when refused. */
export function connectDevice(url: string, d: TestDevice, options: IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(url, {
    clientId: d.sn,
    username: d.sn,
    password: d.secret,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    ...options,
  });
}

export const up = (d: TestDevice, kind: UpKind) => upTopic(d.productKey, d.sn, kind);

/** Resolves with the next message on a topic. */
export function nextMessage(client: MqttClient, topic: string, timeoutMs = 5000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      reject(new Error(`no message on ${topic}`));
    }, timeoutMs);
    const onMessage = (t: string, payload: Buffer) => {
      if (t !== topic) return;
      clearTimeout(timer);
      client.off('message', onMessage);
      resolve(payload);
    };
    client.on('message', onMessage);
  });
}

/** Polls until `check` returns a value other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
