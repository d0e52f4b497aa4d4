import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { demoMeter, ModbusBus } from './modbus';
import { DEFAULT_SOCKET_OPTIONS, SocketFleet } from './socket-dtu';

let server: net.Server | undefined;
let fleet: SocketFleet | undefined;
afterEach(async () => {
  await fleet?.stop();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
});

/** A stand-in device host on 127.0.0.1 that keeps what each connection sent. */
async function host(onData: (socket: net.Socket, chunk: Buffer, all: Buffer[]) => void) {
  const got: Buffer[][] = [];
  server = net.createServer((s) => {
    const mine: Buffer[] = [];
    got.push(mine);
    s.on('data', (b: Buffer) => {
      mine.push(b);
      onData(s, b, mine);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { port: (server!.address() as net.AddressInfo).port, got };
}

const until = async (check: () => boolean) => {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('socket-mode DTU', () => {
  it('registers with its sn, then sends frames and heartbeats', async () => {
    const h = await host(() => undefined);
    fleet = new SocketFleet([{ sn: 'SOCK-9', product_key: 'p', secret: 's' }], {
      ...DEFAULT_SOCKET_OPTIONS,
      protocol: 'tcp',
      host: '127.0.0.1',
      port: h.port,
      register: 'REG:{sn}',
      heartbeatEvery: 0.05,
      rate: 20,
      frameBytes: 64,
    });
    await fleet.start();
    await until(() => fleet!.stats.framesSent >= 2 && fleet!.stats.heartbeats >= 1);
    await until(() => Buffer.concat(h.got[0] ?? []).length > 64);
    const all = Buffer.concat(h.got[0]!);
    expect(all.subarray(0, 10).toString()).toBe('REG:SOCK-9');
    expect(all.includes(Buffer.from('PING'))).toBe(true);
    expect(fleet.stats.connected).toBe(1);
  });

  it('answers Modbus requests from its slave', async () => {
    const h = await host((s, chunk) => {
      if (chunk.toString() === 'SOCK-M') {
        // Read holding register 0 of slave 1 (function 3, CRC appended by the bus's own framing rules).
        s.write(Buffer.from('010300000001840A', 'hex'));
      }
    });
    fleet = new SocketFleet([{ sn: 'SOCK-M', product_key: 'p', secret: 's' }], {
      ...DEFAULT_SOCKET_OPTIONS,
      protocol: 'tcp',
      host: '127.0.0.1',
      port: h.port,
      rate: 0,
      heartbeat: '',
      modbus: () => new ModbusBus([demoMeter()]),
    });
    await fleet.start();
    await until(() => fleet!.stats.modbusAnswers === 1);
    await until(() => (h.got[0] ?? []).length >= 2);
    const answer = h.got[0]![1]!;
    expect(answer[0]).toBe(1);
    expect(answer[1]).toBe(3);
  });
});
