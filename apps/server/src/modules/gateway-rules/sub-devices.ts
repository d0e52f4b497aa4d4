import {
  type DownKind,
  subCmdReplyUp,
  subConfigMessage,
  subEventUp,
  subPropertyUp,
  subRawMessage,
  subStatusUp,
  type SubUpKind,
} from '@cellhub/contract/protocol';
import type { z } from 'zod';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { Rejection } from '../../lib/rejection';
import type { DeviceLink } from '../../gateway/device-link';
import { handleCommandReply } from '../commands/commands.service';
import { handleConfigReport } from '../device-config/device-config.service';
import type { ConnectInfo } from '../devices/device-presence.service';
import type { DeviceRef } from '../devices/device-ref';
import { encodeCommand } from '../scripts/script-commands';
import type { TelemetryIngest } from '../telemetry/telemetry-ingest';
import { recordDeviceEvent } from '../thing-model/device-events.service';
import {
  boundSubDevice,
  onlineSubDevices,
  routeOfSubDevice,
  type SubDeviceRoute,
} from './gateway-rules.service';

/**
 * Sub-devices behind a gateway (docs/gateway-rules.md, docs/device-protocol.md "Sub-devices"). The gateway speaks for
 * them on its own `sub_*` topics; this turns each message into the sub-device's own (the same telemetry, command,
 * configuration and event paths a directly connected device takes), keeps their presence through the gateway's
 * presence path, and routes what the platform sends them through their gateway.
 */

/** What the router needs of the device gateway (gateway/device-gateway.ts) it works for. */
export interface SubDeviceHost {
  readonly telemetry: TelemetryIngest;
  connected(device: DeviceRef, info: ConnectInfo): Promise<void>;
  disconnected(device: DeviceRef, reason: string, setOffline?: boolean): Promise<void>;
  online(sn: string, stored: number): boolean;
}

/** Bindings read for routing are kept this long; a change on this instance applies at once (`forget`). */
export const ROUTE_CACHE_MS = 5000;
/** Offline gateways are collected for this long and their sub-devices looked up in one statement. */
const GATEWAY_GONE_WINDOW_MS = 20;

const issues = (err: z.ZodError) =>
  err.issues.slice(0, 5).map((i) => ({ field: i.path.join('.'), message: i.message }));

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new Rejection(`${what} payload does not match the schema`, 10113, issues(r.error));
  return r.data;
}

/** The `id` of a sub_property message, for its reply even when the rest is invalid. */
function messageIdIn(json: unknown): string | undefined {
  const id = json && typeof json === 'object' ? (json as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.length <= 64 ? id : undefined;
}

export class SubDeviceRouter {
  /** Sub-devices this instance set online, with their gateway's sn. */
  private readonly live = new Map<string, { sub: DeviceRef; gatewaySn: string }>();
  private readonly routes = new Map<string, { at: number; route: SubDeviceRoute | undefined }>();
  private readonly bound = new Map<
    string,
    { at: number; sub: (DeviceRef & { disabled: boolean }) | undefined }
  >();
  private gone = new Map<number, DeviceRef>();
  private goneTimer: NodeJS.Timeout | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Deps,
    private readonly host: SubDeviceHost,
  ) {
    // A gateway going offline takes its sub-devices with it (whoever set them online, on any instance).
    deps.events.on('presence.changed', (e) => {
      if (e.online === 0 && !this.live.has(e.device.sn)) this.gatewayGone(e.device);
    });
  }

  // --- uplinks --------------------------------------------------------------------------------------------------

  /** One `P/up/sub_*` message of a gateway. Throws a Rejection when it is dropped (counted on the gateway). */
  async uplink(gateway: DeviceRef, kind: SubUpKind, json: unknown): Promise<void> {
    switch (kind) {
      case 'sub_property': {
        const id = messageIdIn(json);
        try {
          const { sub, ...message } = validate(subPropertyUp, json, 'sub_property');
          const device = await this.subOf(gateway, sub);
          await this.present(gateway, device);
          await this.host.telemetry.ingest(device, message);
          if (id !== undefined) this.reply(gateway, { id, code: 0 });
        } catch (err) {
          if (err instanceof Rejection && id !== undefined) {
            this.reply(gateway, { id, code: err.replyCode, message: err.reason });
          }
          throw err;
        }
        return;
      }
      case 'sub_status': {
        const s = validate(subStatusUp, json, 'sub_status');
        const device = await this.subOf(gateway, s.sub);
        if (s.online === 1) await this.present(gateway, device, true);
        else await this.absent(device, 'sub-device offline');
        return;
      }
      case 'sub_raw': {
        const m = validate(subRawMessage, json, 'sub_raw');
        const device = await this.subOf(gateway, m.sub);
        await this.present(gateway, device);
        await this.host.telemetry.raw(device, Buffer.from(m.data, 'hex'));
        return;
      }
      case 'sub_event': {
        const { sub, ...event } = validate(subEventUp, json, 'sub_event');
        const device = await this.subOf(gateway, sub);
        await this.present(gateway, device);
        await recordDeviceEvent(this.deps, device, event);
        return;
      }
      case 'sub_config': {
        const { sub, ...config } = validate(subConfigMessage, json, 'sub_config');
        const device = await this.subOf(gateway, sub);
        await this.present(gateway, device);
        await handleConfigReport(this.deps, device, config);
        this.deps.events.emit({ type: 'config.reported', device, config });
        return;
      }
      case 'sub_cmd_reply': {
        const { sub, ...reply } = validate(subCmdReplyUp, json, 'sub_cmd_reply');
        const device = await this.subOf(gateway, sub);
        if (!(await handleCommandReply(this.deps, device, reply))) {
          throw new Rejection(`no command with id "${reply.id}" for sub-device "${sub}"`, 10107);
        }
        this.deps.events.emit({ type: 'command.replied', device, reply });
        return;
      }
    }
  }

  private reply(gateway: DeviceRef, payload: { id: string; code: number; message?: string }): void {
    this.deps.link.send(gateway.productKey, gateway.sn, 'property_reply', payload).catch(() => undefined);
  }

  /** The sub-device `sn` of this gateway; 85006 (dropped) when the gateway has no such sub-device. */
  private async subOf(gateway: DeviceRef, sn: string): Promise<DeviceRef> {
    const key = `${gateway.id}:${sn}`;
    const hit = this.bound.get(key);
    let sub = hit && Date.now() - hit.at < ROUTE_CACHE_MS ? hit.sub : undefined;
    if (!hit || Date.now() - hit.at >= ROUTE_CACHE_MS) {
      sub = await boundSubDevice(this.deps.db, gateway.id, sn);
      if (this.bound.size > 100_000) this.bound.clear();
      this.bound.set(key, { at: Date.now(), sub });
    }
    if (!sub) throw new Rejection(`"${sn.slice(0, 64)}" is not a sub-device of this gateway`, 85006);
    // As a disabled device may not connect, its gateway may not speak for it.
    if (sub.disabled) throw new Rejection(`sub-device "${sn}" is disabled`, 85010);
    const { disabled: _disabled, ...ref } = sub;
    return ref;
  }

  /**
   * The sub-device is online through this gateway: on its `{"online":1}`, and on any message the gateway sends for
   * it while it is not (a gateway that reports data without a status first).
   */
  private async present(gateway: DeviceRef, sub: DeviceRef, explicit = false): Promise<void> {
    const known = this.live.get(sub.sn);
    if (known?.gatewaySn === gateway.sn && !explicit) return;
    if (known?.gatewaySn === gateway.sn && this.host.online(sub.sn, 1)) return;
    this.live.set(sub.sn, { sub, gatewaySn: gateway.sn });
    await this.host.connected(sub, { ip: '', protocol: `gateway/${gateway.sn}` });
  }

  private async absent(sub: DeviceRef, reason: string): Promise<void> {
    this.live.delete(sub.sn);
    await this.host.disconnected(sub, reason);
  }

  // --- the gateway goes -----------------------------------------------------------------------------------------

  private gatewayGone(device: DeviceRef): void {
    this.gone.set(device.id, device);
    if (this.goneTimer) return;
    this.goneTimer = setTimeout(() => {
      this.goneTimer = undefined;
      const batch = this.gone;
      this.gone = new Map();
      this.pending = this.pending
        .then(() => this.takeDown(batch))
        .catch((err: unknown) =>
          this.deps.log.warn({ err }, 'sub-devices of an offline gateway not updated'),
        );
    }, GATEWAY_GONE_WINDOW_MS);
    this.goneTimer.unref();
  }

  private async takeDown(batch: Map<number, DeviceRef>): Promise<void> {
    const subs = new Map<string, DeviceRef>();
    const gatewaySns = new Set<string>();
    for (const gateway of batch.values()) {
      // Back already (a quick reconnect): its sub-devices stay as they are.
      if (this.host.online(gateway.sn, 0)) continue;
      gatewaySns.add(gateway.sn);
      for (const sub of await onlineSubDevices(this.deps.db, gateway.id)) subs.set(sub.sn, sub);
    }
    for (const [sn, l] of this.live) if (gatewaySns.has(l.gatewaySn)) subs.set(sn, l.sub);
    await Promise.all([...subs.values()].map((sub) => this.absent(sub, 'gateway offline')));
  }

  /** Waits for gateway-offline work already started (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.goneTimer || this.gone.size > 0) await new Promise((r) => setTimeout(r, 5));
    await this.pending;
  }

  // --- the link's questions -------------------------------------------------------------------------------------

  /** The gateway a device's downlinks go through, or undefined for a device that is no bound sub-device. */
  async route(sn: string): Promise<SubDeviceRoute | undefined> {
    const hit = this.routes.get(sn);
    if (hit && Date.now() - hit.at < ROUTE_CACHE_MS) return hit.route;
    const route = await routeOfSubDevice(this.deps.db, sn);
    if (this.routes.size > 100_000) this.routes.clear();
    this.routes.set(sn, { at: Date.now(), route });
    return route;
  }

  /** A binding changed (bind, unbind, rule deleted): read it again. */
  forget(sn: string): void {
    this.routes.delete(sn);
    for (const key of this.bound.keys()) if (key.endsWith(`:${sn}`)) this.bound.delete(key);
  }

  /** Sets a sub-device offline that this instance set online (unbound, disabled, deleted); false if it knows none. */
  release(sn: string, reason: string): boolean {
    const l = this.live.get(sn);
    if (!l) return false;
    void this.absent(l.sub, reason);
    return true;
  }
}

const hex = (payload: unknown): string =>
  (Buffer.isBuffer(payload) ? payload : Buffer.from(payload as Uint8Array)).toString('hex');

/**
 * The services' device link with sub-devices: a downlink for a bound sub-device goes to its gateway on the `sub_*`
 * kind with the sub-device's sn in `sub` (a command the sub-device's product script encodes goes as `sub_raw`); the
 * rest goes to `inner` unchanged. Whether a sub-device is online is `inner`'s answer: the gateway keeps it
 * (`SubDeviceRouter.present`).
 */
export function subDeviceLink(
  inner: DeviceLink,
  router: SubDeviceRouter,
  scripts: TelemetryIngest['scripts'],
): DeviceLink {
  return {
    async send(productKey: string, sn: string, kind: DownKind, payload: unknown): Promise<void> {
      const route = await router.route(sn);
      if (!route) return inner.send(productKey, sn, kind, payload);
      const { gateway } = route;
      const via = (k: DownKind, body: unknown) => inner.send(gateway.productKey, gateway.sn, k, body);
      switch (kind) {
        case 'cmd': {
          if (Buffer.isBuffer(payload)) return via('sub_raw', { sub: sn, data: hex(payload) });
          const encoded = await encodeCommand(scripts, productKey, sn, payload);
          if (encoded) return via('sub_raw', { sub: sn, data: encoded.toString('hex') });
          return via('sub_cmd', { sub: sn, ...(payload as object) });
        }
        case 'raw':
          return via('sub_raw', { sub: sn, data: hex(payload) });
        case 'config':
          return via('sub_config', { sub: sn, ...(payload as object) });
        case 'ota':
          throw new AppError(85009);
        case 'property_reply':
          // The gateway's own messages are answered to the gateway (SubDeviceRouter.reply).
          return;
        default:
          return inner.send(productKey, sn, kind, payload);
      }
    },
    online: (sn, stored) => inner.online(sn, stored),
    kick(sn, reason) {
      if (!router.release(sn, reason)) inner.kick(sn, reason);
    },
    invalidate(sn) {
      router.forget(sn);
      inner.invalidate(sn);
    },
  };
}
