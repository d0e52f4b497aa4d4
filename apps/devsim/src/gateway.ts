/**
 * Gateway mode (`--sub-devices N`): every simulated device is a gateway speaking for N sub-devices behind it
 * (docs/gateway-rules.md, docs/device-protocol.md "Sub-devices"). It reports each sub-device's status and readings
 * on `P/up/sub_status` / `P/up/sub_property`, answers `P/down/sub_cmd` on `P/up/sub_cmd_reply` (the sub-device
 * echoes what it was sent, as a serial loop-back does), applies `P/down/sub_config` and reports it back, and echoes
 * `P/down/sub_raw` on `P/up/sub_raw`. The sub-devices are `<gateway sn>-S01` .. `-SNN` unless named otherwise.
 */
import { HEX_RULE } from '@cellhub/contract/protocol';
import type { DownlinkHandler, PropertyParams, VirtualDevice } from './device';
import { hashSeed, Telemetry } from './telemetry';

/** The sns of a gateway's sub-devices: `<gateway sn>-S01` .. (two digits up to 99, then three). */
export function subDeviceSns(gatewaySn: string, n: number): string[] {
  const width = n > 99 ? 3 : 2;
  return Array.from({ length: n }, (_, i) => `${gatewaySn}-S${String(i + 1).padStart(width, '0')}`);
}

export interface GatewayStats {
  /** Sub-device readings sent. */
  reports: number;
  /** Sub-device commands answered. */
  commands: number;
  configs: number;
  raw: number;
}

export const newGatewayStats = (): GatewayStats => ({ reports: 0, commands: 0, configs: 0, raw: 0 });

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The downlink handlers of a gateway: what its sub-devices answer. */
export function gatewayHandlers(
  stats: GatewayStats,
  commandDelayMs = 0,
): Record<'sub_cmd' | 'sub_config' | 'sub_raw', DownlinkHandler> {
  return {
    sub_cmd: async (device, body) => {
      const sub = text(body.sub);
      const id = text(body.id);
      const type = text(body.type);
      const data = text(body.data);
      if (!sub || !id) return;
      stats.commands++;
      if (commandDelayMs > 0) await new Promise((r) => setTimeout(r, commandDelayMs));
      const valid = type === 'string' || (type === 'hex' && HEX_RULE.test(data));
      await device.publish('sub_cmd_reply', valid ? { sub, id, code: 0, data } : { sub, id, code: 70003 });
    },
    sub_config: async (device, body) => {
      const sub = text(body.sub);
      if (!sub || typeof body.version !== 'number') return;
      stats.configs++;
      const config = typeof body.config === 'object' && body.config !== null ? body.config : {};
      await device.publish('sub_config', { sub, version: body.version, config });
    },
    sub_raw: async (device, body) => {
      const sub = text(body.sub);
      const data = text(body.data);
      if (!sub || !HEX_RULE.test(data)) return;
      stats.raw++;
      await device.publish('sub_raw', { sub, data });
    },
  };
}

/**
 * Drives the sub-devices of a set of gateways from one timer: once a gateway is connected it says each sub-device
 * is online, then reports every sub-device's readings at `rate` per second (0: status only). A gateway that
 * reconnects announces its sub-devices again.
 */
export class SubDeviceReporter {
  private readonly telemetry = new Map<string, Telemetry>();
  private readonly announced = new Set<VirtualDevice>();
  private readonly next = new Map<VirtualDevice, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly gateways: () => readonly VirtualDevice[],
    private readonly subs: (gateway: VirtualDevice) => readonly string[],
    private readonly opts: { rate: number; sample?: (sn: string, t: Telemetry) => PropertyParams },
    readonly stats: GatewayStats = newGatewayStats(),
  ) {}

  start(tickMs = 200): void {
    this.timer = setInterval(() => this.tick(), tickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(sn: string): PropertyParams {
    let t = this.telemetry.get(sn);
    if (!t) this.telemetry.set(sn, (t = new Telemetry(hashSeed(sn))));
    if (this.opts.sample) return this.opts.sample(sn, t);
    return t.sample(['temperature', 'humidity']);
  }

  /** One round: announce newly connected gateways' sub-devices, and report those that are due. */
  tick(now = Date.now()): void {
    for (const g of this.gateways()) {
      if (!g.connected) {
        this.announced.delete(g);
        continue;
      }
      if (!this.announced.has(g)) {
        this.announced.add(g);
        for (const sub of this.subs(g))
          void g.publish('sub_status', { sub, online: 1 }).catch(() => undefined);
      }
      if (this.opts.rate <= 0) continue;
      const due = this.next.get(g) ?? 0;
      if (now < due) continue;
      this.next.set(g, now + 1000 / this.opts.rate);
      for (const sub of this.subs(g)) {
        this.stats.reports++;
        void g.publish('sub_property', { sub, ts: now, params: this.sample(sub) }).catch(() => undefined);
      }
    }
  }

  /** Says every sub-device of a gateway went offline (the gateway stays connected). */
  async allOffline(g: VirtualDevice): Promise<void> {
    for (const sub of this.subs(g)) await g.publish('sub_status', { sub, online: 0 });
  }
}
