import net from 'node:net';
import { TUNNEL_HELLO, tunnelDown, type TunnelDown } from '@cellhub/contract/tunnels';
import type { DownlinkHandler } from './device';

/**
 * Remote tunnels as a DTU takes them (`P/down/tunnel`, docs/device-protocol.md and docs/tunnels.md): connect to
 * `local_ip:local_port` on the LAN, then open a reverse TCP connection to the platform's `host:port`, send
 * `CELLHUB-TUNNEL <token>` as the first line and pipe bytes both ways until either side closes. When the LAN port
 * does not answer, the device still connects back and says `CELLHUB-TUNNEL <token> REFUSED <why>`, so the platform
 * fails the tunnel at once (11016) instead of waiting.
 */
export interface TunnelOptions {
  /** Connect here instead of the message's `host` (the platform's public name may not resolve on a test machine). */
  platformHost?: string;
  /** Connect here instead of `local_ip` (a demo's "LAN" is this machine). */
  localHost?: string;
  /** ms to wait for the LAN port. */
  connectTimeoutMs?: number;
}

export interface TunnelStats {
  opened: number;
  refused: number;
  bytesUp: number;
  bytesDown: number;
}

export const newTunnelStats = (): TunnelStats => ({ opened: 0, refused: 0, bytesUp: 0, bytesDown: 0 });

function connect(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('ETIMEDOUT'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Opens one reverse connection for a `down/tunnel` message. Resolves once it is piping (or refused). */
export async function openReverse(
  down: TunnelDown,
  opts: TunnelOptions = {},
  stats: TunnelStats = newTunnelStats(),
): Promise<void> {
  const timeout = opts.connectTimeoutMs ?? 5000;
  const platformHost = opts.platformHost ?? down.host;
  let local: net.Socket;
  try {
    local = await connect(opts.localHost ?? down.local_ip, down.local_port, timeout);
  } catch (err) {
    stats.refused += 1;
    const why = ((err as NodeJS.ErrnoException).code ?? 'ERROR').replace(/\s+/g, '_');
    const platform = await connect(platformHost, down.port, timeout);
    platform.on('error', () => undefined);
    platform.end(`${TUNNEL_HELLO} ${down.token} REFUSED ${why}\n`);
    return;
  }
  // A server that speaks first (SSH, FTP) waits in the socket's buffer until the platform side is up.
  local.pause();
  local.on('error', () => undefined);
  let platform: net.Socket;
  try {
    platform = await connect(platformHost, down.port, timeout);
  } catch (err) {
    local.destroy();
    throw err;
  }
  platform.on('error', () => undefined);
  stats.opened += 1;
  platform.write(`${TUNNEL_HELLO} ${down.token}\n`);
  // Counted from the sockets' own counters when the pair ends: nothing runs per chunk.
  platform.once('close', () => {
    stats.bytesDown += platform.bytesRead;
    stats.bytesUp += local.bytesRead;
    local.destroy();
  });
  local.once('close', () => platform.destroy());
  platform.pipe(local);
  local.pipe(platform);
}

/** The `tunnel` downlink handler of a virtual device (`--tunnel`). */
export function tunnelHandler(
  opts: TunnelOptions = {},
  stats: TunnelStats = newTunnelStats(),
): DownlinkHandler {
  return async (_device, body) => {
    const down = tunnelDown.safeParse(body);
    if (!down.success) return;
    if (down.data.expires < Date.now()) return;
    await openReverse(down.data, opts, stats);
  };
}
