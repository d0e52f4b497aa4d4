#!/usr/bin/env -S npx tsx
// `npm run devsim -- --url mqtt://127.0.0.1:1883 --devices devices.json --rate 1`
// devices.json: [{"sn", "product_key", "secret"}, ...] as the console or API gives them.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { VirtualDevice, type DeviceIdentity } from './device';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'mqtt://127.0.0.1:1883' },
    devices: { type: 'string' },
    rate: { type: 'string', default: '1' },
    hmac: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help || !values.devices) {
  console.log(`devsim: a fleet of virtual DTUs speaking the Cellhub MQTT protocol

  --url URL        broker (mqtt://host:1883 or ws://host:8080/mqtt), default mqtt://127.0.0.1:1883
  --devices FILE   JSON array of {"sn", "product_key", "secret"}
  --rate N         property reports per device per second (default 1)
  --hmac           sign in with the HMAC password instead of the plain secret`);
  process.exit(values.devices ? 0 : 1);
}

const identities = JSON.parse(readFileSync(values.devices, 'utf8')) as DeviceIdentity[];
const rate = Number(values.rate);
const devices = identities.map(
  (identity) =>
    new VirtualDevice(identity, {
      url: values.url,
      hmac: values.hmac,
      info: { fw_version: '1.0.0', hw_version: 'A1', imei: identity.sn.padStart(15, '8').slice(-15) },
      properties: () => ({
        temperature: Math.round((20 + Math.random() * 10) * 10) / 10,
        humidity: Math.round(40 + Math.random() * 30),
      }),
    }),
);

let connected = 0;
for (const d of devices) {
  try {
    await d.connect();
    connected++;
  } catch (e) {
    console.error(`${d.identity.sn}: ${(e as Error).message}`);
  }
}
console.log(`${connected}/${devices.length} devices connected`);
const timer = setInterval(() => {
  for (const d of devices) void d.report().catch(() => undefined);
}, 1000 / rate);

process.on('SIGINT', async () => {
  clearInterval(timer);
  await Promise.all(devices.map((d) => d.close()));
  process.exit(0);
});
