// Child process of bench/connections.mjs: opens idle device connections (connect + subscribe to P/down/#, as a DTU
// does) for the identities it is sent, `concurrency` handshakes at a time, and reports when done.
import mqtt from 'mqtt';

const clients = [];
process.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    const { url, identities, concurrency } = msg;
    let next = 0;
    let failed = 0;
    let firstError;
    const worker = async () => {
      while (next < identities.length) {
        const id = identities[next++];
        const client = mqtt.connect(url, {
          clientId: id.sn,
          username: id.sn,
          password: id.secret,
          keepalive: 120,
          reconnectPeriod: 0,
          connectTimeout: 60_000,
        });
        try {
          await new Promise((resolve, reject) => {
            client.once('connect', resolve);
            client.once('error', reject);
            client.once('close', () => reject(new Error('closed')));
          });
          client.on('error', () => undefined);
          await client.subscribeAsync(`dev/${id.product_key}/${id.sn}/down/#`, { qos: 1 });
          clients.push(client);
        } catch (err) {
          failed++;
          firstError ??= err.message;
          client.end(true);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    process.send({ done: true, connected: clients.filter((c) => c.connected).length, failed, firstError });
  } else if (msg.cmd === 'count') {
    process.send({ connected: clients.filter((c) => c.connected).length });
  } else if (msg.cmd === 'stop') {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    process.exit(0);
  }
});
