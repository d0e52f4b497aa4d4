import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newTunnelStats, openReverse } from './tunnel';

// A stand-in platform endpoint and LAN server on 127.0.0.1 (ephemeral ports).
const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

function listen(onConnection: (s: net.Socket) => void): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

/** The platform side: resolves with the hello line and the socket. */
async function platform(): Promise<{ port: number; next: Promise<{ line: string; socket: net.Socket }> }> {
  let take!: (v: { line: string; socket: net.Socket }) => void;
  const next = new Promise<{ line: string; socket: net.Socket }>((resolve) => (take = resolve));
  const port = await listen((socket) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      socket.off('data', onData);
      take({ line: buf.slice(0, nl), socket });
    };
    socket.on('data', onData);
  });
  return { port, next };
}

const down = (port: number, localPort: number) => ({
  id: 1,
  token: 'tok',
  host: '127.0.0.1',
  port,
  local_ip: '127.0.0.1',
  local_port: localPort,
  expires: Date.now() + 60_000,
});

describe('devsim tunnel', () => {
  it('connects the LAN port to the platform after its hello line', async () => {
    const local = await listen((s) => s.on('data', (d: Buffer) => s.write(`echo:${d.toString()}`)));
    const p = await platform();
    const stats = newTunnelStats();
    await openReverse(down(p.port, local), {}, stats);
    const { line, socket } = await p.next;
    expect(line).toBe('CELLHUB-TUNNEL tok');
    socket.write('hi');
    const answer = await new Promise<string>((resolve) =>
      socket.once('data', (d: Buffer) => resolve(d.toString())),
    );
    expect(answer).toBe('echo:hi');
    expect(stats).toMatchObject({ opened: 1, refused: 0 });
    socket.destroy();
  });

  it('reports a closed LAN port as refused', async () => {
    const closed = await listen(() => undefined);
    servers.pop()!.close();
    const p = await platform();
    const stats = newTunnelStats();
    await openReverse(down(p.port, closed), {}, stats);
    expect((await p.next).line).toBe('CELLHUB-TUNNEL tok REFUSED ECONNREFUSED');
    expect(stats.refused).toBe(1);
  });
});
