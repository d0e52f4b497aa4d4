// Child process of bench/reconnect.mjs: a share of the fleet as raw MQTT connections (mqtt-packet over TCP, so the
// bytes are exactly what a DTU sends). `connect`: every device connects once (CONNACK awaited, `concurrency` at a
// time) and stays connected. `reconnect`: every device goes dark on that connection (it stops reading it; the server
// still holds it, so the new CONNECT takes it over) and at once opens a new one, writing its CONNECT and its
// buffered QoS 1 messages in one write, without waiting for the CONNACK. A refused or dropped connection is retried
// after 1 s with what is still unacknowledged (DUP set), as a device does; each is counted.
import net from 'node:net';
import mqttPacket from 'mqtt-packet';

const devices = [];
let target;
let version = 4;

const encode = (p) => mqttPacket.generate(p, { protocolVersion: version });

function connectPacket(d) {
  return encode({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: version,
    clean: true,
    keepalive: 300,
    clientId: d.sn,
    username: d.sn,
    password: Buffer.from(d.secret),
  });
}

/** Opens a connection; `onPacket` sees what the server sends, `onClose` fires once. */
function open(onPacket, onClose) {
  const socket = net.connect(target.port, target.host);
  socket.setNoDelay(true);
  const parser = mqttPacket.parser({ protocolVersion: version });
  parser.on('packet', onPacket);
  parser.on('error', () => socket.destroy());
  socket.on('data', (b) => parser.parse(b));
  socket.on('error', () => undefined);
  socket.once('close', onClose);
  return socket;
}

async function connectAll(concurrency) {
  let next = 0;
  let failed = 0;
  let firstError;
  const worker = async () => {
    while (next < devices.length) {
      const d = devices[next++];
      try {
        await new Promise((resolve, reject) => {
          const socket = open(
            (p) => {
              if (p.cmd !== 'connack') return;
              const code = p.returnCode ?? p.reasonCode;
              if (code === 0) {
                d.old = socket;
                resolve();
              } else reject(new Error(`CONNACK ${code}`));
            },
            () => reject(new Error('closed before CONNACK')),
          );
          socket.once('connect', () => socket.write(connectPacket(d)));
        });
      } catch (err) {
        failed++;
        firstError ??= err.message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { connected: devices.filter((d) => d.old).length, failed, firstError };
}

/** The CONNECT and the messages not yet acknowledged, as one buffer. */
function flushOf(d, messages, base, dup) {
  const out = [connectPacket(d)];
  for (let i = 1; i <= messages; i++) {
    if (d.acked.has(i)) continue;
    out.push(
      encode({
        cmd: 'publish',
        topic: d.topic,
        payload: Buffer.from(JSON.stringify({ ts: base + i, params: { seq: i } })),
        qos: 1,
        messageId: i,
        dup,
        retain: false,
      }),
    );
  }
  return Buffer.concat(out);
}

function reconnectAll({ messages, base, timeoutMs }) {
  for (const d of devices) d.flush = flushOf(d, messages, base, false);
  const t0 = performance.now();
  const stats = {
    refused: 0,
    dropped: 0,
    attempts: 0,
    acked: 0,
    connackMs: [],
    doneMs: [],
    firstRefusal: undefined,
  };
  return new Promise((resolve) => {
    let pending = devices.length;
    const finish = () => {
      clearTimeout(timer);
      stats.unfinished = devices.filter((d) => !d.done).length;
      resolve(stats);
    };
    const timer = setTimeout(finish, timeoutMs);
    const deviceDone = (d) => {
      d.done = true;
      stats.doneMs.push(performance.now() - t0);
      if (--pending === 0) finish();
    };
    const attempt = (d, first) => {
      stats.attempts++;
      let start = 0;
      let refusedHere = false;
      const socket = open(
        (p) => {
          if (p.cmd === 'connack') {
            const code = p.returnCode ?? p.reasonCode;
            if (code !== 0) {
              stats.refused++;
              refusedHere = true;
              stats.firstRefusal ??= `CONNACK ${code}`;
              socket.destroy();
              return;
            }
            if (first) stats.connackMs.push(performance.now() - start);
          } else if (p.cmd === 'puback' && !d.acked.has(p.messageId)) {
            d.acked.add(p.messageId);
            stats.acked++;
            if (d.acked.size === messages) deviceDone(d);
          }
        },
        () => {
          if (d.done || stats.unfinished !== undefined) return;
          // Closed with messages unacknowledged: a drop (unless a refusal, counted above); the device tries again.
          if (!refusedHere) stats.dropped++;
          setTimeout(() => attempt(d, false), 1000);
        },
      );
      d.socket = socket;
      socket.once('connect', () => {
        // The CONNECT and every message not yet acknowledged, in one write, before any CONNACK (the first flush is
        // encoded before the storm, so the load process's own work does not delay it).
        const bytes = first ? d.flush : flushOf(d, messages, base, true);
        start = performance.now();
        socket.write(bytes);
      });
    };
    for (const d of devices) {
      // Gone dark: this connection is no longer read (the server holds it open until the takeover closes it).
      d.old?.pause();
      attempt(d, true);
    }
  });
}

process.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    target = msg.target;
    version = msg.version;
    for (const id of msg.identities) {
      devices.push({
        sn: id.sn,
        secret: id.secret,
        topic: `dev/${id.product_key}/${id.sn}/up/property`,
        acked: new Set(),
        done: false,
      });
    }
    process.send(msg.skip ? { connected: 0, failed: 0 } : await connectAll(msg.concurrency));
  } else if (msg.cmd === 'reconnect') {
    process.send(await reconnectAll(msg));
  } else if (msg.cmd === 'stop') {
    for (const d of devices) {
      d.old?.destroy();
      d.socket?.destroy();
    }
    process.exit(0);
  }
});
