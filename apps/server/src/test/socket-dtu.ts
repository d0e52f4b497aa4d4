import dgram from 'node:dgram';
import net from 'node:net';

/**
 * A DTU in socket mode for device-host tests: a plain TCP or UDP client on 127.0.0.1 that sends packets and keeps
 * what it receives, with a wait for the next packet and (TCP) for the server closing the connection.
 */
export class SocketDtu {
  readonly received: Buffer[] = [];
  closed = false;
  private waiters: (() => void)[] = [];
  private tcp?: net.Socket;
  private udp?: dgram.Socket;

  private constructor(
    readonly protocol: 'tcp' | 'udp',
    readonly port: number,
  ) {}

  static async connect(protocol: 'tcp' | 'udp', port: number): Promise<SocketDtu> {
    const d = new SocketDtu(protocol, port);
    const got = (b: Buffer) => {
      d.received.push(b);
      d.wake();
    };
    if (protocol === 'tcp') {
      const s = net.connect({ host: '127.0.0.1', port });
      d.tcp = s;
      s.on('data', got);
      s.on('close', () => {
        d.closed = true;
        d.wake();
      });
      s.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('error', reject);
      });
    } else {
      const s = dgram.createSocket('udp4');
      d.udp = s;
      s.on('message', got);
      await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
    }
    return d;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(data: Buffer | string): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    return new Promise((resolve, reject) => {
      if (this.tcp) this.tcp.write(bytes, (err) => (err ? reject(err) : resolve()));
      else this.udp!.send(bytes, this.port, '127.0.0.1', (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Waits until `check` holds (re-checked on every packet and on close). */
  until(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`socket DTU: ${what} not met in time`)), timeoutMs);
      const test = () => {
        if (check()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(test);
      };
      test();
    });
  }

  /** Resolves with the first received packet (from `from` on) that satisfies `match`. */
  async next(match: (b: Buffer) => boolean = () => true, from = 0, timeoutMs = 5000): Promise<Buffer> {
    let found: Buffer | undefined;
    await this.until(
      () => {
        found = this.received.slice(from).find(match);
        return found !== undefined;
      },
      timeoutMs,
      'packet',
    );
    return found!;
  }

  untilClosed(timeoutMs = 5000): Promise<void> {
    return this.until(() => this.closed, timeoutMs, 'close');
  }

  close(): void {
    this.closed = true;
    this.tcp?.destroy();
    try {
      this.udp?.close();
    } catch {
      // already closed
    }
  }
}
