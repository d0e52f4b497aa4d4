// Child process of bench/ingest.mjs: the "raw broker" baseline. With --aedes PORT it runs a bare Aedes (no auth,
// no ACL, in-memory) on that port; with --url it uses an existing broker. Either way one plain MQTT subscriber takes
// every uplink of the bench product at QoS 1 and counts it. The parent asks for the count over IPC.
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';

const { values } = parseArgs({
  options: { aedes: { type: 'string' }, url: { type: 'string' }, topic: { type: 'string' } },
});

let broker;
let server;
let url = values.url;
if (values.aedes !== undefined) {
  broker = await Aedes.createBroker();
  server = createServer(broker.handle);
  await new Promise((r) => server.listen(Number(values.aedes), '127.0.0.1', r));
  url = `mqtt://127.0.0.1:${server.address().port}`;
}

let received = 0;
const sub = mqtt.connect(url, {
  clientId: `bench-raw-sub-${process.pid}`,
  clean: true,
  reconnectPeriod: 0,
});
sub.on('message', () => {
  received++;
});
await new Promise((resolve, reject) => {
  sub.once('connect', resolve);
  sub.once('error', reject);
});
await sub.subscribeAsync(values.topic, { qos: 1 });

process.on('message', async (msg) => {
  if (msg === 'count') process.send({ received });
  if (msg === 'stop') {
    await sub.endAsync(true);
    if (broker) await new Promise((r) => broker.close(r));
    server?.close();
    process.exit(0);
  }
});
process.send({ ready: true, url });
