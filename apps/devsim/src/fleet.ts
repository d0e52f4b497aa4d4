import { newStats, VirtualDevice, type BadKind, type DeviceIdentity, type DownlinkHandler } from './device';
import type { ModbusBus } from './modbus';
import { encodeRawFrame } from './raw-frame';
import { DtuPolledValues } from './dtu-polled';
import { deviceInfo, hashSeed, seededRandom, Telemetry, type PropertyKey } from './telemetry';

/** Spaces out events to at most `perSecond`; a connect storm is what a real fleet does after a broker restart. */
export class RateGate {
  private next = 0;
  constructor(private readonly perSecond: number) {}

  async take(): Promise<void> {
    if (!(this.perSecond > 0) || !Number.isFinite(this.perSecond)) return;
    const now = Date.now();
    const slot = Math.max(now, this.next);
    this.next = slot + 1000 / this.perSecond;
    if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
  }
}

export interface FleetOptions {
  url: string;
  hmac?: boolean;
  keepalive?: number;
  protocolVersion?: 4 | 5;
  /** Property reports per device per second (0 = connect only). */
  rate: number;
  /** New connections per second across the fleet (0 = as fast as possible). */
  connectRate: number;
  /** Share of devices that go offline and come back. */
  flapRatio: number;
  /** Mean seconds a flapping device stays online between outages. */
  offlineEvery: number;
  /** Mean seconds an outage lasts. */
  offlineFor: number;
  /** Share of reports replaced by a broken message. */
  badRatio: number;
  /** Seconds between `P/up/info` re-sends with the current signal (0 = only after connecting). */
  infoEvery: number;
  properties: readonly PropertyKey[];
  /** Readings kept while offline, sent as a batch on reconnect (0 = none). */
  bufferOffline: number;
  commandDelayMs?: number;
  handlers?: Partial<Record<string, DownlinkHandler>>;
  /** Modbus RTU slaves behind each device in transparent mode (`--modbus`): a fresh bus per device. */
  modbus?: (sn: string) => ModbusBus;
  /** Seed for choices the fleet makes (who flaps, when); telemetry is seeded per sn. */
  seed?: number;
  /** Firmware version reported on `P/up/info` until an upgrade changes it (default 1.0.0). */
  fwVersion?: string;
  /** Readings go out as binary frames on `P/up/raw` (./raw-frame.ts) instead of JSON property messages. */
  rawFrames?: boolean;
  /**
   * Mean seconds between two thing model events of one device (`P/up/event`, 0 or absent: none): `overheat` with the
   * current temperature, or `door_open`. The product's thing model must define them (scripts/demo.mjs does).
   */
  eventEvery?: number;
}

interface Member {
  device: VirtualDevice;
  telemetry: Telemetry;
  nextReport: number;
  nextInfo: number;
  nextEvent: number;
  flaps: boolean;
  /** Planned outage: when it starts (online) or ends (offline). */
  nextFlap: number;
  offline: boolean;
  reconnecting: boolean;
  backoffMs: number;
  everConnected: boolean;
}

const BAD_KINDS: BadKind[] = ['json', 'schema', 'topic'];

/** A set of virtual devices driven by one timer: reports, info, outages, reconnects and bad messages. */
export class Fleet {
  readonly stats = newStats();
  private readonly members: Member[];
  private readonly gate: RateGate;
  private readonly random: () => number;
  private timer?: NodeJS.Timeout;
  private running = false;
  readonly startedAt = Date.now();
  /** The latest connect failure, shown on the status line so a refused fleet says why. */
  lastError?: string;
  private firstConnects = 0;

  constructor(
    identities: DeviceIdentity[],
    private readonly opts: FleetOptions,
  ) {
    this.random = seededRandom(opts.seed ?? 1);
    this.gate = new RateGate(opts.connectRate);
    const flapping = Math.round(identities.length * opts.flapRatio);
    this.members = identities.map((identity, i) => {
      const telemetry = new Telemetry(hashSeed(identity.sn));
      const info = deviceInfo(identity.sn, opts.fwVersion);
      const polled = new DtuPolledValues(identity.sn);
      const member: Member = {
        telemetry,
        nextReport: 0,
        nextInfo: 0,
        nextEvent: 0,
        flaps: i < flapping,
        nextFlap: 0,
        offline: false,
        reconnecting: false,
        backoffMs: 1000,
        everConnected: false,
        device: new VirtualDevice(identity, {
          url: opts.url,
          hmac: opts.hmac,
          keepalive: opts.keepalive,
          protocolVersion: opts.protocolVersion,
          stats: this.stats,
          bufferOffline: opts.bufferOffline,
          commandDelayMs: opts.commandDelayMs,
          handlers: opts.handlers,
          modbus: opts.modbus?.(identity.sn),
          // Plus the variables of a data template pushed in `dtu` mode, as a DTU polling its own slaves reports them.
          properties: () => ({
            ...telemetry.sample(opts.properties),
            ...polled.sample(member.device.config.config),
          }),
          info: () => ({ ...info, ...telemetry.signal() }),
          onClose: (_device, planned) => {
            if (!planned && this.running) this.scheduleReconnect(member);
          },
        }),
      };
      return member;
    });
  }

  get size(): number {
    return this.members.length;
  }

  get devices(): VirtualDevice[] {
    return this.members.map((m) => m.device);
  }

  connectedCount(): number {
    let n = 0;
    for (const m of this.members) if (m.device.connected) n++;
    return n;
  }

  /** Connects every device (paced by the gate) and starts the timer; resolves once each has tried once. */
  async start(): Promise<void> {
    this.running = true;
    const now = Date.now();
    const period = this.opts.rate > 0 ? 1000 / this.opts.rate : Infinity;
    for (const m of this.members) {
      // Spread the first reports over one period so a fleet does not publish in lock-step.
      m.nextReport = now + this.random() * (Number.isFinite(period) ? period : 0);
      m.nextInfo = now + this.opts.infoEvery * 1000 * (0.5 + this.random());
      m.nextEvent = now + (this.opts.eventEvery ?? 0) * 1000 * 2 * this.random();
      m.nextFlap = now + this.opts.offlineEvery * 1000 * (0.5 + this.random());
    }
    this.timer = setInterval(() => this.tick(), 50);
    await Promise.all(this.members.map((m) => this.connect(m)));
  }

  private async connect(m: Member): Promise<void> {
    await this.gate.take();
    if (!this.running) return;
    try {
      await m.device.connect();
      m.backoffMs = 1000;
      if (!m.everConnected) {
        m.everConnected = true;
        this.firstConnects++;
      }
    } catch (err) {
      this.lastError = `${m.device.identity.sn}: ${(err as Error).message}`;
      this.scheduleReconnect(m);
    }
  }

  private scheduleReconnect(m: Member): void {
    if (m.reconnecting || !this.running) return;
    m.reconnecting = true;
    // Exponential back-off with jitter, like DTU firmware, so a refused fleet does not hammer the server.
    const delay = m.backoffMs * (0.5 + this.random());
    m.backoffMs = Math.min(m.backoffMs * 2, 60_000);
    setTimeout(() => {
      m.reconnecting = false;
      if (this.running && !m.offline && !m.device.connected) void this.connect(m);
    }, delay).unref();
  }

  private tick(): void {
    const now = Date.now();
    const period = this.opts.rate > 0 ? 1000 / this.opts.rate : Infinity;
    for (const m of this.members) {
      if (m.flaps) this.flap(m, now);
      if (now >= m.nextReport && Number.isFinite(period)) {
        m.nextReport += period;
        if (m.nextReport < now) m.nextReport = now + period; // fell behind (e.g. a long GC): do not burst
        if (m.device.connected && this.opts.badRatio > 0 && this.random() < this.opts.badRatio) {
          const kind = BAD_KINDS[Math.floor(this.random() * BAD_KINDS.length)] ?? 'json';
          void m.device.sendBad(kind).catch(() => undefined);
        } else if (this.opts.rawFrames) {
          const frame = encodeRawFrame(m.telemetry.sample(this.opts.properties));
          if (m.device.connected) void m.device.publishBytes('raw', frame).catch(() => undefined);
        } else if (m.device.connected || m.offline) {
          void m.device.report().catch(() => undefined);
        }
      }
      if (this.opts.infoEvery > 0 && now >= m.nextInfo) {
        m.nextInfo = now + this.opts.infoEvery * 1000;
        if (m.device.connected) void m.device.publish('info', m.telemetry.signal()).catch(() => undefined);
      }
      const eventEvery = this.opts.eventEvery ?? 0;
      if (eventEvery > 0 && now >= m.nextEvent) {
        m.nextEvent = now + eventEvery * 1000 * 2 * this.random();
        if (m.device.connected) {
          const temp = m.telemetry.sample(['temperature']).temperature;
          const sent =
            this.random() < 0.5 && typeof temp === 'number'
              ? m.device.sendEvent('overheat', { temp })
              : m.device.sendEvent('door_open');
          void sent.catch(() => undefined);
        }
      }
    }
  }

  private flap(m: Member, now: number): void {
    if (now < m.nextFlap) return;
    if (!m.offline && m.device.connected) {
      m.offline = true;
      m.nextFlap = now + this.opts.offlineFor * 1000 * (0.5 + this.random());
      void m.device.goOffline(this.random() < 0.5 ? 'clean' : 'abrupt');
    } else if (m.offline) {
      m.offline = false;
      m.nextFlap = now + this.opts.offlineEvery * 1000 * (0.5 + this.random());
      if (!m.device.connected) void this.connect(m);
    }
  }

  /** One line for the terminal: connected, traffic and failures since start. */
  statusLine(previous?: { sent: number; at: number }): string {
    const s = this.stats;
    const secs = Math.round((Date.now() - this.startedAt) / 1000);
    const offline = this.members.filter((m) => m.offline).length;
    let rate = '';
    if (previous) {
      const dt = (Date.now() - previous.at) / 1000;
      if (dt > 0) rate = ` (${Math.round((s.sent - previous.sent) / dt)}/s)`;
    }
    return (
      `[${secs}s] connected ${this.connectedCount()}/${this.size}` +
      (offline ? ` planned-offline ${offline}` : '') +
      `  sent ${s.sent}${rate}  acked ${s.acked}  errors ${s.errors}` +
      `  cmds ${s.commands}  configs ${s.configs}  bad ${s.bad}  reconnects ${s.connects - this.firstConnects}` +
      (this.lastError ? `  last connect error: ${this.lastError}` : '')
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    await Promise.all(this.members.map((m) => m.device.close().catch(() => undefined)));
  }
}
