import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { type AlertMethod, type AlertPushMode, isPresenceType } from '@cellhub/contract/alerts';
import type { PropertyValue } from '@cellhub/contract/protocol';
import type { DbOrTx } from '../../db/client';
import { BatchQueue } from '../../jobs/batch-queue';
import { type Periodic, startPeriodic } from '../../jobs/periodic';
import { type DeviceAccessRow, liveShare, ruleWatchesDevice, type Subject } from '../../lib/authz';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { devices } from '../devices/devices.table';
import { enqueueNotification, notificationsQueued, type NotifyChannel } from '../notify/notify.service';
import { productProperties, products } from '../products/products.table';
import type { PropertyItem } from '../telemetry/property-writer';
import { devicePropertyLatest } from '../telemetry/telemetry.table';
import { users } from '../users/users.table';
import {
  alertTime,
  type Condition,
  meetsPresence,
  meetsValue,
  renderContent,
  valueText,
} from './alert-conditions';
import { notifyAlertChange } from './alert-signals';
import { alertMessage } from './alert-inbox';
import { addInboxMessages } from '../inbox/inbox.service';
import {
  alertConfigContacts,
  alertConfigs,
  alertConfigTriggers,
  type AlertContactRow,
  alertContacts,
  alertHistory,
  alertStates,
  type AlertStateRow,
  alertTriggerContacts,
  alertTriggers,
  type AlertTriggerRow,
  boxValue,
  type PushMark,
} from './alerts.table';

export interface AlertEngineOptions {
  /**
   * Every this often the index of enabled triggers and the active states are read again from the database: changes
   * whose notification was lost (another instance, a dropped LISTEN connection) are picked up by then.
   */
  reloadMs: number;
  /**
   * Values are judged this long after the first of them arrived, together with whatever came meanwhile (the newest
   * per device and key): under load one drain serves many messages instead of one drain per event-loop turn.
   */
  batchMs: number;
}

export const DEFAULT_ALERT_ENGINE_OPTIONS: AlertEngineOptions = { reloadMs: 60_000, batchMs: 10 };

/** What the evaluator keeps in memory of an enabled trigger: only what judging a value needs. */
interface Entry {
  id: number;
  /** `<trigger>:<device>`, the key of its state (built once: judging runs for every message). */
  sk: string;
  /** Whose rule it is: the authorisation layer says which devices it may watch (`ruleWatchesDevice`). */
  owner: Subject;
  deviceId: number;
  /** null: an online-state trigger (types 1, 2). */
  key: string | null;
  cond: Condition;
}

interface StateCache {
  active: boolean;
  /** While active: when a repeat push may be due (ms); null: none (push mode `once` everywhere). */
  repeatAt: number | null;
}

interface Pending {
  device: DeviceRef;
  values: Map<string, { v: PropertyValue; ts: number }>;
  online?: 0 | 1;
}

/** A recipient group: the trigger's own contacts ('t') or one alert configuration ('c<id>'). */
interface Group {
  key: string;
  silenceS: number;
  mode: AlertPushMode;
  methods: AlertMethod[];
  contacts: AlertContactRow[];
}

type Kind = 'raise' | 'repeat' | 'recover';

/**
 * What the worker loop is handed, merged per key while a batch collects: a full reload, one trigger's or one
 * state's reload, or one device's newest values.
 */
type Work =
  { k: 'reload' } | { k: 'trigger'; id: number } | { k: 'state'; key: string } | { k: 'device'; p: Pending };

// Devices are keyed by their number (no string per message on the hot path), the rest by strings.
const workKey = (w: Work): string | number =>
  w.k === 'device' ? w.p.device.id : w.k === 'reload' ? 'r' : w.k === 'trigger' ? `t:${w.id}` : `s:${w.key}`;

/** A device's values of two messages: the later message's win (handed over in order, newest device time only). */
function mergeWork(queued: Work, added: Work): Work {
  if (queued.k !== 'device' || added.k !== 'device') return queued;
  const into = queued.p;
  into.device = added.p.device;
  for (const [key, slot] of added.p.values) into.values.set(key, slot);
  if (added.p.online !== undefined) into.online = added.p.online;
  return queued;
}

/** A state change the judging found, applied afterwards in the database. */
interface Change {
  e: Entry;
  device: DeviceRef;
  value: PropertyValue;
}

const stateKey = (triggerId: number, deviceId: number) => `${triggerId}:${deviceId}`;

/** The rule owner's account as the authorisation layer reads a caller (it decides what the rule may watch). */
const ruleOwner = { uid: users.id, role: users.role };

export interface AlertEngineStats {
  /** Trigger conditions judged against a value or a presence change. */
  evaluated: number;
  raised: number;
  recovered: number;
  repeated: number;
  /** Notification rows queued. */
  messages: number;
  failures: number;
}

/**
 * Evaluates enabled triggers on every stored property value and presence change, off the ingest path: the gateway
 * hands over each committed message (`properties`) or presence change (`presence`) synchronously; a device without
 * triggers costs one Map lookup. Values are merged per (device, key), newest device time wins, and judged by one
 * worker loop against the cached state of each (trigger, device). Only a change of state (raise, recovery) or a due
 * repeat touches the database, in one transaction that locks the state row, checks again against the stored trigger
 * and state (another instance may have got there first), writes the history, queues the notifications and updates
 * the state, so a restart or a second instance neither raises twice nor loses a recovery.
 */
export class AlertEngine {
  readonly options: AlertEngineOptions;
  readonly stats: AlertEngineStats = {
    evaluated: 0,
    raised: 0,
    recovered: 0,
    repeated: 0,
    messages: 0,
    failures: 0,
  };
  private byDevice = new Map<number, Entry[]>();
  /** Watched keys per device, each with the newest device time judged (late buffered values do not move a state back). */
  private keysByDevice = new Map<number, Map<string, number>>();
  private presenceDevices = new Set<number>();
  private states = new Map<string, StateCache>();
  /** The worker loop: one batch at a time, collected for `batchMs`, merged per device / trigger / state. */
  private readonly work: BatchQueue<Work, void, string | number>;
  private reload: Periodic | undefined;
  private closed = false;

  constructor(
    private readonly deps: Deps,
    options: Partial<AlertEngineOptions> = {},
  ) {
    this.options = { ...DEFAULT_ALERT_ENGINE_OPTIONS, ...options };
    this.work = new BatchQueue<Work, void, string | number>({
      name: 'alerts',
      run: (items) => this.runBatch(items),
      maxBatch: Number.MAX_SAFE_INTEGER,
      maxDelayMs: this.options.batchMs,
      // Bounded by what can be pending at once (devices with triggers, triggers, states): merging keeps one
      // entry per key, so this never refuses in practice; a refusal is counted as a failure.
      maxQueued: Number.MAX_SAFE_INTEGER,
      key: workKey,
      merge: mergeWork,
      onError: (err) => {
        this.stats.failures++;
        this.deps.log.warn({ err }, 'alerts: evaluation loop failed');
      },
    });
  }

  /** Loads the index and the states, then keeps them fresh. */
  async start(): Promise<void> {
    await this.loadAll();
    if (this.options.reloadMs > 0) {
      this.reload = startPeriodic({
        name: 'alerts: reload',
        everyMs: this.options.reloadMs,
        run: () => this.reloadAll(),
        log: this.deps.log,
      });
    }
  }

  /** Triggers in the index (enabled, on a device). */
  get size(): number {
    let n = 0;
    for (const list of this.byDevice.values()) n += list.length;
    return n;
  }

  // --- the gateway's side (hot path: synchronous, no allocation for devices without triggers) -----------------

  /** A property message of this device was committed. */
  properties(device: DeviceRef, items: readonly PropertyItem[]): void {
    const keys = this.keysByDevice.get(device.id);
    if (!keys) return;
    let p: Pending | undefined;
    for (const item of items) {
      for (const key in item.params) {
        const last = keys.get(key);
        if (last === undefined || item.ts < last) continue;
        keys.set(key, item.ts);
        p ??= { device, values: new Map() };
        const slot = p.values.get(key);
        if (slot) {
          slot.v = item.params[key]!;
          slot.ts = item.ts;
        } else p.values.set(key, { v: item.params[key]!, ts: item.ts });
      }
    }
    if (p) this.post({ k: 'device', p });
  }

  /** The device's online state was written (1 connected, 0 offline). */
  presence(device: DeviceRef, online: 0 | 1): void {
    if (!this.presenceDevices.has(device.id)) return;
    this.post({ k: 'device', p: { device, values: new Map(), online } });
  }

  // --- signals -------------------------------------------------------------------------------------------------

  /** Triggers were created, changed or deleted (here or, through NOTIFY, on another instance). */
  triggersChanged(ids: number[]): void {
    for (const id of ids) this.post({ k: 'trigger', id });
  }

  /** Another instance changed a state (`s:<trigger>:<device>`) or a trigger (`t:<id>`). */
  remoteChange(payload: string): void {
    const [kind, a, b] = payload.split(':');
    if (kind === 't' && a) this.triggersChanged([Number(a)]);
    else if (kind === 's' && a && b) this.post({ k: 'state', key: stateKey(Number(a), Number(b)) });
  }

  /** Reads everything again (periodically, and after the LISTEN connection was down). */
  reloadAll(): void {
    this.post({ k: 'reload' });
  }

  /** Resolves once everything handed over so far has been judged (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.work.size > 0 || this.work.active > 0) await this.work.flush();
  }

  /** Judges what was handed over, then takes nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    await this.reload?.stop();
    await this.work.stop();
  }

  private post(w: Work): void {
    if (this.closed) return;
    // Refused only in theory (the bound is far above what merging leaves pending): counted, never silent.
    if (!this.work.post(w)) this.stats.failures++;
  }

  // --- the worker loop -----------------------------------------------------------------------------------------

  /** One batch, in order: a full reload, changed triggers, changed states, then the values (judged together). */
  private async runBatch(items: readonly Work[]): Promise<void> {
    const triggers: number[] = [];
    const states: string[] = [];
    const devices: Pending[] = [];
    let reload = false;
    for (const w of items) {
      if (w.k === 'reload') reload = true;
      else if (w.k === 'trigger') triggers.push(w.id);
      else if (w.k === 'state') states.push(w.key);
      else devices.push(w.p);
    }
    if (reload) await this.guard('reload', () => this.loadAll());
    if (triggers.length > 0) await this.guard('trigger reload', () => this.reloadTriggers(triggers));
    if (states.length > 0) await this.guard('state reload', () => this.reloadStates(states));
    if (devices.length > 0) {
      // Judging is synchronous; only the few state changes it finds wait for the database, one by one.
      const changes: Change[] = [];
      for (const p of devices) this.judge(p, changes);
      for (const c of changes) await this.applySafely(c);
    }
  }

  private async guard(what: string, task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (err) {
      this.stats.failures++;
      this.deps.log.warn({ err }, `alerts: ${what} failed`);
    }
  }

  // --- index ---------------------------------------------------------------------------------------------------

  private async loadAll(): Promise<void> {
    const rows = await this.deps.db
      .select({ t: alertTriggers, owner: ruleOwner })
      .from(alertTriggers)
      .innerJoin(users, eq(users.id, alertTriggers.uid))
      .where(
        and(
          eq(alertTriggers.enable, 1),
          // A scene trigger (source `scene`) watches the device property its scene variable names.
          inArray(alertTriggers.source, ['device', 'scene']),
          isNotNull(alertTriggers.deviceId),
        ),
      );
    const active = await this.deps.db
      .select({ triggerId: alertStates.triggerId, deviceId: alertStates.deviceId })
      .from(alertStates)
      .where(eq(alertStates.status, 'active'));
    const byDevice = new Map<number, Entry[]>();
    for (const r of rows) {
      const e = entryOf(r.t, r.owner);
      if (!e) continue;
      const list = byDevice.get(e.deviceId);
      if (list) list.push(e);
      else byDevice.set(e.deviceId, [e]);
    }
    const states = new Map<string, StateCache>();
    for (const s of active) {
      const k = stateKey(s.triggerId, s.deviceId);
      // The repeat time is not stored: "maybe due" makes the next matching value compute it in the database.
      states.set(k, { active: true, repeatAt: this.states.get(k)?.repeatAt ?? 0 });
    }
    this.byDevice = byDevice;
    this.rebuildKeys();
    this.states = states;
  }

  private rebuildKeys(): void {
    const keys = new Map<number, Map<string, number>>();
    const presence = new Set<number>();
    for (const [deviceId, list] of this.byDevice) {
      const before = this.keysByDevice.get(deviceId);
      const watched = new Map<string, number>();
      for (const e of list) {
        if (e.key === null) presence.add(deviceId);
        else watched.set(e.key, before?.get(e.key) ?? -Infinity);
      }
      keys.set(deviceId, watched);
    }
    this.keysByDevice = keys;
    this.presenceDevices = presence;
  }

  /** Replaces these triggers in the index and judges the enabled ones against the device's latest values. */
  private async reloadTriggers(ids: number[]): Promise<void> {
    const rows = await this.deps.db
      .select({ t: alertTriggers, owner: ruleOwner })
      .from(alertTriggers)
      .innerJoin(users, eq(users.id, alertTriggers.uid))
      .where(inArray(alertTriggers.id, ids));
    const gone = new Set(ids);
    const byDevice = new Map<number, Entry[]>();
    for (const [deviceId, list] of this.byDevice) {
      const kept = list.filter((e) => !gone.has(e.id));
      if (kept.length > 0) byDevice.set(deviceId, kept);
    }
    const added: Entry[] = [];
    for (const r of rows) {
      const e =
        r.t.enable === 1 && (r.t.source === 'device' || r.t.source === 'scene')
          ? entryOf(r.t, r.owner)
          : undefined;
      if (!e) continue;
      added.push(e);
      byDevice.set(e.deviceId, [...(byDevice.get(e.deviceId) ?? []), e]);
    }
    for (const k of [...this.states.keys()]) {
      if (gone.has(Number(k.slice(0, k.indexOf(':'))))) this.states.delete(k);
    }
    const stored = await this.deps.db.select().from(alertStates).where(inArray(alertStates.triggerId, ids));
    for (const s of stored) this.cacheState(s);
    this.byDevice = byDevice;
    this.rebuildKeys();
    if (added.length > 0) await this.judgeLatest(added);
  }

  private async reloadStates(keys: string[]): Promise<void> {
    const ids = [...new Set(keys.map((k) => Number(k.slice(0, k.indexOf(':')))))];
    const stored = await this.deps.db.select().from(alertStates).where(inArray(alertStates.triggerId, ids));
    const wanted = new Set(keys);
    for (const s of stored) {
      if (wanted.has(stateKey(s.triggerId, s.deviceId))) this.cacheState(s);
    }
  }

  private cacheState(s: AlertStateRow): void {
    const k = stateKey(s.triggerId, s.deviceId);
    if (s.status === 'active')
      this.states.set(k, { active: true, repeatAt: this.states.get(k)?.repeatAt ?? 0 });
    else this.states.set(k, { active: false, repeatAt: null });
  }

  /**
   * A new or changed trigger is judged at once against what is stored: the latest value of its property, or
   * whether the device is online, so a threshold crossed before the trigger existed raises without waiting.
   */
  private async judgeLatest(entries: Entry[]): Promise<void> {
    const deviceIds = [...new Set(entries.map((e) => e.deviceId))];
    const devs = await this.deps.db
      .select({
        id: devices.id,
        sn: devices.sn,
        productKey: devices.productKey,
        uid: devices.uid,
        online: devices.online,
      })
      .from(devices)
      .where(inArray(devices.id, deviceIds));
    const keys = [...new Set(entries.flatMap((e) => (e.key === null ? [] : [e.key])))];
    const latest =
      keys.length > 0
        ? await this.deps.db
            .select()
            .from(devicePropertyLatest)
            .where(
              and(inArray(devicePropertyLatest.deviceId, deviceIds), inArray(devicePropertyLatest.key, keys)),
            )
        : [];
    for (const d of devs) {
      const mine = entries.filter((e) => e.deviceId === d.id);
      const ref: DeviceRef = { id: d.id, sn: d.sn, productKey: d.productKey, uid: d.uid };
      const p: Pending = { device: ref, values: new Map() };
      if (mine.some((e) => e.key === null)) p.online = d.online === 1 ? 1 : 0;
      for (const l of latest) {
        if (l.deviceId !== d.id) continue;
        const v = l.num ?? l.txt ?? l.bool;
        if (v !== null) p.values.set(l.key, { v, ts: l.ts.getTime() });
      }
      const changes: Change[] = [];
      this.judge(p, changes, new Set(mine.map((e) => e.id)));
      for (const c of changes) await this.applySafely(c);
    }
  }

  // --- judging -------------------------------------------------------------------------------------------------

  /**
   * The device as the layer sees it for a rule of `ownerUid`: with the right of a live share the rule's owner holds
   * on it (the share audience cache, docs/sharing.md), so a share holder's rule watches the shared device while the
   * share lasts.
   */
  private watched(ownerUid: number, device: DeviceRef): DeviceAccessRow {
    if (device.uid === ownerUid || device.uid === null) return device;
    const grant = this.deps.caches.shares
      .grantsOf(device.sn)
      .find((g) => g.uid === ownerUid && g.ownerUid === device.uid);
    const shared = liveShare(grant, this.deps.now());
    return shared ? { uid: device.uid, shared } : device;
  }

  /** Adds to `changes` each trigger of the device whose state the new values would change (or a repeat is due). */
  private judge(p: Pending, changes: Change[], only?: Set<number>): void {
    const entries = this.byDevice.get(p.device.id);
    if (!entries) return;
    let nowMs: number | undefined;
    for (const e of entries) {
      if (only && !only.has(e.id)) continue;
      if (!ruleWatchesDevice(e.owner, this.watched(e.owner.uid, p.device))) continue;
      let met: boolean | undefined;
      let value: PropertyValue;
      if (e.key === null) {
        if (p.online === undefined) continue;
        met = meetsPresence(e.cond.type, p.online);
        value = p.online;
      } else {
        const x = p.values.get(e.key);
        if (!x) continue;
        met = meetsValue(e.cond, x.v);
        value = x.v;
      }
      this.stats.evaluated++;
      if (met === undefined) continue;
      const st = this.states.get(e.sk);
      const active = st?.active ?? false;
      const due =
        met && active && st!.repeatAt !== null && (nowMs ??= this.deps.now().getTime()) >= st!.repeatAt;
      if (met === active && !due) continue;
      changes.push({ e, device: p.device, value });
    }
  }

  private async applySafely({ e, device, value }: Change): Promise<void> {
    try {
      await this.apply(e, device, value);
    } catch (err) {
      this.stats.failures++;
      this.deps.log.warn({ err, trigger: e.id, sn: device.sn }, 'alerts: state change failed');
    }
  }

  /**
   * One state change in one transaction, decided again on the locked state row and the stored trigger. Raise:
   * history row, pushes of the groups not in their silence time, state active. Repeat: pushes of the `per_silence`
   * groups whose silence time has passed. Recovery: history row closed, recovery pushed to the groups that were
   * told of the raise, state normal.
   */
  private async apply(e: Entry, device: DeviceRef, value: PropertyValue): Promise<void> {
    const now = this.deps.now();
    let queued = 0;
    const outcome = await this.deps.db.transaction(async (tx) => {
      const [t] = await tx.select().from(alertTriggers).where(eq(alertTriggers.id, e.id));
      if (!t || t.enable !== 1 || t.deviceId !== device.id) return { drop: true as const };
      const met = isPresenceType(t.type)
        ? typeof value === 'number' && (value === 0 || value === 1)
          ? meetsPresence(t.type, value)
          : undefined
        : meetsValue({ type: t.type, a: t.a, b: t.b }, value);
      await tx
        .insert(alertStates)
        .values({ triggerId: t.id, deviceId: device.id, status: 'normal', since: now })
        .onConflictDoNothing();
      const [s] = await tx
        .select()
        .from(alertStates)
        .where(and(eq(alertStates.triggerId, t.id), eq(alertStates.deviceId, device.id)))
        .for('update');
      if (!s || met === undefined) return { drop: false as const, state: s, repeatAt: undefined };
      const active = s.status === 'active';
      if (!met && !active) return { drop: false as const, state: s, repeatAt: undefined };
      const kind: Kind = !active ? 'raise' : met ? 'repeat' : 'recover';
      const changed = await this.change(tx, kind, t, s, device, value, now);
      if (changed.row !== s) await notifyAlertChange(this.deps, tx, `s:${t.id}:${device.id}`);
      queued = changed.queued;
      return { drop: false as const, state: changed.row, repeatAt: changed.repeatAt };
    });
    // Committed: the delivery workers of every instance send now rather than at their next poll.
    if (queued > 0) await notificationsQueued(this.deps);
    if (outcome.drop) {
      // The index was stale (trigger deleted, disabled or moved): read it again.
      this.triggersChanged([e.id]);
      return;
    }
    if (!outcome.state) return;
    const k = stateKey(e.id, device.id);
    const active = outcome.state.status === 'active';
    // undefined: nothing was decided about repeats, keep what is cached ("maybe due" if nothing).
    const repeatAt = outcome.repeatAt === undefined ? (this.states.get(k)?.repeatAt ?? 0) : outcome.repeatAt;
    this.states.set(k, { active, repeatAt: active ? repeatAt : null });
  }

  private async change(
    tx: DbOrTx,
    kind: Kind,
    t: AlertTriggerRow,
    s: AlertStateRow,
    device: DeviceRef,
    value: PropertyValue,
    now: Date,
  ): Promise<{ row: AlertStateRow; repeatAt: number | null; queued: number }> {
    const groups = await this.groupsOf(tx, t);
    const marks: Record<string, PushMark> = { ...s.marks };
    const nowIso = now.toISOString();
    const sends: { group: Group; n: number }[] = [];
    let historyId = s.historyId;

    if (kind === 'raise') {
      const info = await this.describe(tx, t, device);
      const [h] = await tx
        .insert(alertHistory)
        .values({
          uid: t.uid,
          triggerId: t.id,
          triggerName: t.name,
          deviceId: device.id,
          sn: info.sn,
          deviceName: info.name,
          productKey: info.productKey,
          key: isPresenceType(t.type) ? null : t.key,
          type: t.type,
          a: t.a,
          b: t.b,
          status: 'active',
          raisedAt: now,
          raisedValue: boxValue(value),
        })
        .returning({ id: alertHistory.id });
      historyId = h!.id;
      await addInboxMessages(tx, [alertMessage(t.uid, historyId, t.name, info, value)]);
      for (const g of groups) {
        const prev = marks[g.key];
        const lastAt = prev?.at ? Date.parse(prev.at) : undefined;
        if (lastAt !== undefined && now.getTime() - lastAt < g.silenceS * 1000) {
          // Raised again within the silence time of the last push: recorded, not pushed.
          marks[g.key] = { at: prev!.at, alert: historyId, n: 0 };
        } else {
          marks[g.key] = { at: nowIso, alert: historyId, n: 1 };
          sends.push({ group: g, n: 1 });
        }
      }
      this.stats.raised++;
    } else if (kind === 'repeat') {
      if (historyId === null) return { row: s, repeatAt: null, queued: 0 };
      for (const g of groups) {
        if (g.mode !== 'per_silence') continue;
        const m = marks[g.key];
        const mine = m && m.alert === historyId;
        const lastAt = m?.at ? Date.parse(m.at) : undefined;
        if (lastAt !== undefined && now.getTime() - lastAt < g.silenceS * 1000) continue;
        const n = (mine ? m.n : 0) + 1;
        marks[g.key] = { at: nowIso, alert: historyId, n };
        sends.push({ group: g, n });
      }
      if (sends.length === 0) {
        // Nothing due yet: only the cached repeat time was early (after a restart).
        return { row: s, repeatAt: nextRepeat(groups, marks), queued: 0 };
      }
      this.stats.repeated++;
    } else {
      if (historyId !== null) {
        await tx
          .update(alertHistory)
          .set({ status: 'recovered', recoveredAt: now, recoveredValue: boxValue(value) })
          .where(and(eq(alertHistory.id, historyId), eq(alertHistory.status, 'active')));
        for (const g of groups) {
          const m = marks[g.key];
          if (m && m.alert === historyId && m.n >= 1) sends.push({ group: g, n: 1 });
        }
      }
      this.stats.recovered++;
    }

    let queued = 0;
    if (sends.length > 0 && historyId !== null) {
      queued = await this.push(tx, kind, t, device, value, now, historyId, sends);
      if (queued > 0) {
        await tx
          .update(alertHistory)
          .set({ pushCount: sql`${alertHistory.pushCount} + ${queued}` })
          .where(eq(alertHistory.id, historyId));
      }
    }
    const active = kind !== 'recover';
    const [updated] = await tx
      .update(alertStates)
      .set({
        status: active ? 'active' : 'normal',
        since: kind === 'repeat' ? s.since : now,
        historyId: active ? historyId : null,
        lastValue: boxValue(value),
        lastSentAt: marks.t?.at ? new Date(marks.t.at) : s.lastSentAt,
        marks,
      })
      .where(and(eq(alertStates.triggerId, s.triggerId), eq(alertStates.deviceId, s.deviceId)))
      .returning();
    return { row: updated!, repeatAt: active ? nextRepeat(groups, marks) : null, queued };
  }

  /** The trigger's own recipients and those of each enabled configuration that lists it. */
  private async groupsOf(tx: DbOrTx, t: AlertTriggerRow): Promise<Group[]> {
    const own = await tx
      .select({ c: alertContacts })
      .from(alertTriggerContacts)
      .innerJoin(alertContacts, eq(alertContacts.id, alertTriggerContacts.contactId))
      .where(eq(alertTriggerContacts.triggerId, t.id));
    const groups: Group[] = [];
    if (own.length > 0 || t.methods.includes('wechat')) {
      groups.push({
        key: 't',
        silenceS: t.silenceS,
        mode: t.pushMode,
        methods: t.methods,
        contacts: own.map((r) => r.c),
      });
    }
    const configs = await tx
      .select({ c: alertConfigs })
      .from(alertConfigTriggers)
      .innerJoin(alertConfigs, eq(alertConfigs.id, alertConfigTriggers.configId))
      .where(and(eq(alertConfigTriggers.triggerId, t.id), eq(alertConfigs.enable, 1)));
    if (configs.length > 0) {
      const members = await tx
        .select({ configId: alertConfigContacts.configId, c: alertContacts })
        .from(alertConfigContacts)
        .innerJoin(alertContacts, eq(alertContacts.id, alertConfigContacts.contactId))
        .where(
          inArray(
            alertConfigContacts.configId,
            configs.map((r) => r.c.id),
          ),
        );
      for (const { c } of configs) {
        groups.push({
          key: `c${c.id}`,
          silenceS: c.intervalS,
          mode: c.pushMode,
          methods: c.methods,
          contacts: members.filter((m) => m.configId === c.id).map((m) => m.c),
        });
      }
    }
    return groups;
  }

  private async describe(
    tx: DbOrTx,
    t: AlertTriggerRow,
    device: DeviceRef,
  ): Promise<{ sn: string; name: string; productKey: string; property: string }> {
    const [d] = await tx
      .select({ sn: devices.sn, name: devices.name, productKey: devices.productKey })
      .from(devices)
      .where(eq(devices.id, device.id));
    const sn = d?.sn ?? device.sn;
    const productKey = d?.productKey ?? device.productKey;
    let property = 'online';
    if (!isPresenceType(t.type) && t.key) {
      const [p] = await tx
        .select({ name: productProperties.name })
        .from(productProperties)
        .innerJoin(products, eq(products.id, productProperties.productId))
        .where(and(eq(products.productKey, productKey), eq(productProperties.key, t.key)));
      property = p?.name || t.key;
    }
    return { sn, name: d?.name ?? '', productKey, property };
  }

  /**
   * Queues one message per recipient and channel across the groups pushing now (a contact in two groups hears it
   * once). SMS only to a verified phone, email only to a verified email, WeChat to the owner's bound account.
   * Idempotency key: `alert:<historyId>:<raise|recover>[:n]:<group>:<channel>:<contact id|owner>`.
   */
  private async push(
    tx: DbOrTx,
    kind: Kind,
    t: AlertTriggerRow,
    device: DeviceRef,
    value: PropertyValue,
    now: Date,
    historyId: number,
    sends: { group: Group; n: number }[],
  ): Promise<number> {
    const info = await this.describe(tx, t, device);
    const label = info.name || info.sn;
    const presence = isPresenceType(t.type);
    const params = {
      device: label,
      property: info.property,
      value: presence ? (value === 1 ? 'online' : 'offline') : valueText(value),
      time: alertTime(now),
    };
    const recover = kind === 'recover';
    const body = renderContent(
      recover ? t.recoveryContent : t.pushContent,
      recover ? 'recover' : 'raise',
      params,
    );
    const subject = recover
      ? `[Cellhub] 恢复 Recovered: ${t.name} (${label})`
      : `[Cellhub] 告警 Alert: ${t.name} (${label})`;
    let openid: string | null | undefined;
    const seen = new Set<string>();
    let queued = 0;
    for (const { group, n } of sends) {
      const base = `alert:${historyId}:${recover ? 'recover' : 'raise'}${n > 1 ? `:${n}` : ''}:${group.key}`;
      for (const method of group.methods) {
        const targets: { to: string; who: string; contactId?: number }[] = [];
        if (method === 'wechat') {
          if (openid === undefined) {
            const [u] = await tx
              .select({ openid: users.wechatOpenid })
              .from(users)
              .where(eq(users.id, t.uid));
            openid = u?.openid ?? null;
          }
          if (openid) targets.push({ to: openid, who: 'owner' });
        } else {
          for (const c of group.contacts) {
            if (method === 'sms' && c.phone && c.phoneVerified)
              targets.push({ to: c.phone, who: `${c.id}`, contactId: c.id });
            if (method === 'email' && c.email && c.emailVerified)
              targets.push({ to: c.email, who: `${c.id}`, contactId: c.id });
          }
        }
        for (const target of targets) {
          const channel: NotifyChannel = method;
          const dedupe = `${channel}\u0000${target.to}`;
          if (seen.has(dedupe)) continue;
          seen.add(dedupe);
          const r = await enqueueNotification(tx, {
            idempotencyKey: `${base}:${channel}:${target.who}`,
            channel,
            to: target.to,
            template: recover ? 'alert_recover' : 'alert_raise',
            subject,
            body,
            params,
            userId: t.uid,
            contactId: target.contactId,
          });
          if (r.created) queued++;
        }
      }
    }
    this.stats.messages += queued;
    return queued;
  }
}

function entryOf(t: AlertTriggerRow, owner: Subject): Entry | undefined {
  if (t.deviceId === null) return undefined;
  const presence = isPresenceType(t.type);
  if (!presence && !t.key) return undefined;
  return {
    id: t.id,
    sk: stateKey(t.id, t.deviceId),
    owner,
    deviceId: t.deviceId,
    key: presence ? null : t.key,
    cond: { type: t.type, a: t.a, b: t.b },
  };
}

/** The earliest time a `per_silence` group may push this alert again; null when no group repeats. */
function nextRepeat(groups: Group[], marks: Record<string, PushMark>): number | null {
  let next: number | null = null;
  for (const g of groups) {
    if (g.mode !== 'per_silence') continue;
    const at = marks[g.key]?.at;
    const due = at ? Date.parse(at) + g.silenceS * 1000 : 0;
    if (next === null || due < next) next = due;
  }
  return next;
}
