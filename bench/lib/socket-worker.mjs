// A load process of bench/sockets.mjs: socket-mode DTUs on plain TCP. Commands from the parent:
// connect {port, sns, concurrency} -> {connected, failed}; frames {size} starts one frame per second per DTU (each
// starts with `T` and its send time in ms, so the server can time it to its commit); count -> {connected};
// stop -> closes everything and exits.
import net from 'node:net';

const sockets = [];
let timers = [];

async function connect({ port, sns, concurrency }) {
  let next = 0;
  let failed = 0;
  let firstError;
  const one = async () => {
    while (next < sns.length) {
      const sn = sns[next++];
      try {
        const s = await new Promise((resolve, reject) => {
          const c = net.connect({ host: '127.0.0.1', port, noDelay: true });
          c.once('connect', () => resolve(c));
          c.once('error', reject);
        });
        s.on('error', () => undefined);
        s.on('close', () => (s.closedByServer = true));
        s.write(sn);
        sockets.push(s);
      } catch (err) {
        failed++;
        firstError ??= err.message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return { connected: sockets.length, failed, firstError };
}

function frames({ size }) {
  const pad = Buffer.alloc(Math.max(0, size - 14), 0x55);
  sockets.forEach((s, i) => {
    // Spread over the second: the fleet sends a steady stream, not 5,000 frames at once.
    const start = setTimeout(
      () => {
        const send = () => {
          if (!s.destroyed) s.write(Buffer.concat([Buffer.from(`T${Date.now()}`, 'latin1'), pad]));
        };
        send();
        timers.push(setInterval(send, 1000));
      },
      (i * 1000) / sockets.length,
    );
    timers.push(start);
  });
}

process.on('message', async (m) => {
  if (m.cmd === 'connect') process.send(await connect(m));
  else if (m.cmd === 'frames') {
    frames(m);
    process.send({ ok: true });
  } else if (m.cmd === 'count') process.send({ connected: sockets.filter((s) => !s.destroyed).length });
  else if (m.cmd === 'stop') {
    for (const t of timers) clearTimeout(t);
    timers = [];
    for (const s of sockets) s.destroy();
    process.exit(0);
  }
});
