/**
 * The forwarding engine of one instance (docs/forwarding.md "Delivery"):
 *
 * - **Source**: typed domain events (`property.committed`, `event.recorded`, `presence.changed`, `raw.received`),
 *   matched against an in-memory index of enabled rules. A rule takes a device's message only while its owner may
 *   read the device, by the authorisation layer's rule (`ruleWatchesDevice`, with the live share from the share
 *   audience cache), exactly as alert rules do.
 * - **Queue**: matched messages are inserted into `forward_messages` in group commits (a BatchQueue); the row is the
 *   durable job. Rows are written after the data they carry was stored.
 * - **Delivery**: the `forwarding` job kind (src/jobs): a claim takes only the oldest undelivered row of each rule
 *   and device (so a device's next message waits for the previous one), under a lease, attempt counted. Success
 *   deletes the row and counts it (group commits again); failure retries after the job layer's backoff, and a
 *   refusal (4xx, a refused address) or the last attempt makes it a dead letter. A rule whose target has failed
 *   without a success for `pauseAfterMs` is paused and its owner told in the message box; queued messages wait.
 * - **At least once**: a crash after the receiver took a message and before the row was deleted sends it again
 *   with the same `x-cellhub-message-id`; receivers drop repeats by that key.
 */
import { createHash, randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { ForwardKind, ForwardMessage } from '@cellhub/contract/forwarding';
import { liveShare, ruleWatchesDevice, type DeviceAccessRow, type Subject } from '../../lib/authz';
import type { Deps } from '../../lib/deps';
import { decideRetry, type BackoffPolicy } from '../../jobs/backoff';
import { BatchQueue } from '../../jobs/batch-queue';
import { startPeriodic, type Periodic } from '../../jobs/periodic';
import { JobWorker, type JobKind } from '../../jobs/worker';
import type { PropertyItem } from '../../realtime/domain-events';
import type { DeviceRef } from '../devices/device-ref';
import { devices } from '../devices/devices.table';
import { allowKey, OutboundPool } from '../../lib/outbound';
import { addInboxMessages } from '../inbox/inbox.service';
import { users } from '../users/users.table';
import { batchMaxOf, MqttTargets, sendHttp, type LoadedTarget, type SendOutcome } from './forward-send';
import {
  forwardMessages,
  type ForwardMessageRow,
  forwardRules,
  forwardStats,
  type ForwardRuleRow,
  type StoredTarget,
} from './forwarding.table';

export const FORWARDING_KIND = 'forwarding';
/** Rule changes, from any instance: every engine reads its index again. */
export const FORWARD_RULES_CHANNEL = 'cellhub_forward_rules';

export interface ForwardingOptions {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** A target failing without a success this long pauses the rule. */
  pauseAfterMs: number;
  timeoutMs: number;
  /** Safety-net re-read of the rule index. */
  reloadMs: number;
  /** Messages waiting to be inserted at most (beyond: counted as dropped and logged). */
  maxQueued: number;
  /** Consecutive messages of one device sent by one job (one claim), in order. */
  batchPerDevice: number;
  /** Least time between two claim rounds. */
  minGapMs: number;
  /** Messages a paused rule keeps waiting at most; later ones are dropped (counted and logged) until it resumes. */
  pausedBacklog: number;
  /** A direct lane idle this long is checked against the table again before it takes a new message directly. */
  laneIdleMs: number;
}

export const DEFAULT_FORWARDING_OPTIONS: ForwardingOptions = {
  concurrency: 32,
  pollMs: 1000,
  leaseMs: 60_000,
  maxAttempts: 16,
  backoff: { baseMs: 1000, maxMs: 300_000 },
  pauseAfterMs: 10 * 60_000,
  timeoutMs: 10_000,
  reloadMs: 30_000,
  maxQueued: 50_000,
  batchPerDevice: 50,
  minGapMs: 25,
  laneIdleMs: 2000,
  pausedBacklog: 100_000,
};

interface RuleEntry extends LoadedTarget {
  uid: number;
  name: string;
  owner: Subject;
  productKey: string | null;
  sns: Set<string> | null;
  kinds: Set<ForwardKind>;
  paused: boolean;
  /** While paused: rows waiting (read at each reload, counted up as messages queue). */
  backlog: number;
}

type NewMessage = typeof forwardMessages.$inferInsert;

interface Done {
  row: ForwardMessageRow;
  latencyMs: number;
}

/**
 * One rule and device as this instance sees it. `direct`: no undelivered row of the pair exists but the ones this
 * instance wrote, so a new message is written already taken (under this instance's lease, attempt 1) and handed to
 * the worker at once, without a claim reading it back. `stored`: the pair has rows waiting in the table (a retry, a
 * paused rule, rows of another instance): new messages are written pending behind them and the claim takes them
 * in order. A failure, a paused or missing rule, or a lease running short turns a lane `stored`; a lane is checked
 * again (one indexed look per batch) before it turns `direct`.
 */
interface Lane {
  key: string;
  mode: 'direct' | 'stored';
  /** Rows written taken by this instance, not yet handed to a job, oldest first. */
  queue: ForwardMessageRow[];
  /** A job of this lane is adopted or running: it takes the queue's next rows when it ends. */
  busy: boolean;
  /** Last message or delivery (ms, deps.now()). */
  usedAt: number;
  /** Times the lane turned `stored`: a write that began before a turn must not send its rows directly. */
  turns: number;
}

const laneKey = (ruleId: number, deviceId: number) => `${ruleId}:${deviceId}`;

/** Contexts of the sealed columns: a sealed secret copied into another column does not open. */
export const SECRET_CONTEXT = 'forward_rules.secret';
export const PASSWORD_CONTEXT = 'forward_rules.password';

const minute = (d: Date) => new Date(Math.floor(d.getTime() / 60_000) * 60_000);

/** Opens a rule row's secrets for delivery. */
export function loadTarget(deps: Pick<Deps, 'box'>, row: ForwardRuleRow): LoadedTarget {
  return {
    ruleId: row.id,
    target: row.target,
    secret: deps.box.decrypt(row.secret, SECRET_CONTEXT),
    password: row.password ? deps.box.decrypt(row.password, PASSWORD_CONTEXT) : null,
  };
}

export class ForwardingEngine {
  readonly options: ForwardingOptions;
  readonly worker: JobWorker<ForwardMessageRow[]>;
  readonly mqtt: MqttTargets;
  /** Kept-alive HTTP connections to targets, under the server's allow list. */
  private pool: OutboundPool | undefined;
  /** Totals of this instance, for tests and the bench. */
  readonly stats = { queued: 0, dropped: 0, delivered: 0, failed: 0, dead: 0, withdrawn: 0 };
  /** Each device's owner as last seen (from its events, else read once): the rule's right is checked at sending. */
  private readonly owners = new Map<number, number | null>();
  private rules = new Map<number, RuleEntry>();
  private readonly lanes = new Map<string, Lane>();
  /** The lane a job of direct rows came from (jobs are arrays of rows; claimed jobs have none). */
  private readonly laneOf = new WeakMap<ForwardMessageRow[], Lane>();
  private readonly inserts: BatchQueue<NewMessage>;
  private readonly done: BatchQueue<Done>;
  private readonly unsubscribe: (() => void)[] = [];
  private reloader: Periodic | undefined;
  private reloading: Promise<void> | undefined;

  constructor(
    private readonly deps: Deps,
    options: Partial<ForwardingOptions> = {},
  ) {
    this.options = { ...DEFAULT_FORWARDING_OPTIONS, ...options };
    this.mqtt = new MqttTargets(() => this.policy());
    this.inserts = new BatchQueue<NewMessage>({
      name: 'forwarding.inserts',
      maxBatch: 500,
      maxDelayMs: 5,
      maxQueued: this.options.maxQueued,
      whenFull: 'refuse',
      run: (items) => this.write(items),
      onError: (err, items) => {
        this.stats.dropped += items.length;
        this.deps.log.error({ err, count: items.length }, 'forwarding: queueing messages failed');
      },
    });
    this.done = new BatchQueue<Done>({
      name: 'forwarding.done',
      maxBatch: 200,
      maxDelayMs: 2,
      maxQueued: 10_000,
      run: (items) => this.markDelivered(items),
    });
    this.worker = new JobWorker(this.kind(), {
      log: deps.log,
      channels: deps.channels,
      concurrency: this.options.concurrency,
      pollMs: this.options.pollMs,
      // Every delivered batch wakes the worker; under load the claim query runs at most this often instead.
      minGapMs: this.options.minGapMs,
    });
  }

  private policy() {
    const allow = this.deps.config.outboundAllow;
    // The allow list is read at each call (tests and tools change it): a changed list gets connections of its own.
    if (this.pool?.key !== allowKey(allow)) {
      this.pool?.destroy();
      this.pool = new OutboundPool(allow);
    }
    return { allow, timeoutMs: this.options.timeoutMs, pool: this.pool };
  }

  // --- lifecycle ----------------------------------------------------------------------------------------------------

  async start(): Promise<void> {
    await this.reload();
    const { events, channels } = this.deps;
    this.unsubscribe.push(
      // Each returns the promise of its queue rows: the device is acknowledged once they are written.
      events.on('property.committed', (e) => this.onProperty(e.device, e.items)),
      events.on('event.recorded', (e) =>
        this.queue(e.device, 'event', e.ts, { event: e.event, level: e.level, params: e.params }),
      ),
      events.on('presence.changed', (e) =>
        this.queue(e.device, e.online ? 'online' : 'offline', Date.parse(e.at) || this.deps.now().getTime(), {
          online: e.online,
          ...(e.reason === undefined ? {} : { reason: e.reason }),
        }),
      ),
      // Hex only when some rule may take the frame: no cost per raw uplink on a server without rules.
      events.on('raw.received', (e) => {
        if (this.rules.size === 0) return;
        return this.queue(e.device, 'raw', this.deps.now().getTime(), {
          hex: Buffer.from(e.payload).toString('hex'),
        });
      }),
      // A share given or ended changes what rules may read: the audience cache decides at event time already.
      channels.listen(FORWARD_RULES_CHANNEL, () => void this.reload()),
    );
    this.unsubscribe.push(channels.onReconnect(() => void this.reload()));
    this.reloader = startPeriodic({
      name: 'forwarding.rules',
      everyMs: this.options.reloadMs,
      run: () => this.reload(),
      log: this.deps.log,
    });
    this.worker.start();
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.reloader?.stop();
    await this.inserts.stop().catch(() => undefined);
    await this.worker.stop();
    await this.done.stop().catch(() => undefined);
    this.mqtt.close();
    this.pool?.destroy();
  }

  /** Tests: waits until queued inserts are written and the worker's round and handlers ended. */
  async idle(): Promise<void> {
    await this.inserts.flush();
    await this.worker.settle();
    await this.done.flush();
  }

  /** Reads the enabled rules again (after a change on any instance, and every `reloadMs`). */
  reload(): Promise<void> {
    this.reloading ??= this.readRules().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async readRules(): Promise<void> {
    const rows = await this.deps.db
      .select({ rule: forwardRules, role: users.role })
      .from(forwardRules)
      .innerJoin(users, eq(users.id, forwardRules.uid))
      .where(eq(forwardRules.enabled, true));
    const paused = rows.filter((r) => r.rule.pausedAt !== null).map((r) => r.rule.id);
    const backlog = new Map<number, number>();
    if (paused.length > 0) {
      const counted = await this.deps.db
        .select({ ruleId: forwardMessages.ruleId, n: sql<number>`count(*)::int` })
        .from(forwardMessages)
        .where(
          and(inArray(forwardMessages.ruleId, paused), inArray(forwardMessages.status, ['pending', 'taken'])),
        )
        .groupBy(forwardMessages.ruleId);
      for (const c of counted) backlog.set(c.ruleId, Number(c.n));
    }
    const next = new Map<number, RuleEntry>();
    for (const { rule, role } of rows) {
      try {
        next.set(rule.id, {
          ...loadTarget(this.deps, rule),
          uid: rule.uid,
          name: rule.name,
          owner: { uid: rule.uid, role },
          productKey: rule.productKey,
          sns: rule.sns.length > 0 ? new Set(rule.sns) : null,
          kinds: new Set(rule.kinds),
          paused: rule.pausedAt !== null,
          backlog: backlog.get(rule.id) ?? 0,
        });
      } catch (err) {
        this.deps.log.warn({ err, rule: rule.id }, 'forwarding: a rule could not be loaded');
      }
    }
    this.rules = next;
  }

  // --- source -------------------------------------------------------------------------------------------------------

  private onProperty(device: DeviceRef, items: readonly PropertyItem[]): Promise<void> | undefined {
    if (this.rules.size === 0) return;
    let waits: Promise<void>[] | undefined;
    for (const item of items) {
      // A reading with the device's own time keeps its message id when the device sends it again (see `queue`).
      const reading = item.deviceTs ? `${item.ts}:${JSON.stringify(item.params)}` : undefined;
      const w = this.queue(device, 'property', item.ts, { params: item.params }, reading);
      if (w) (waits ??= []).push(w);
    }
    return waits && (waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined));
  }

  /** The device as the layer sees it for a rule of `ownerUid` (with the live share the owner holds on it). */
  private watched(ownerUid: number, device: { uid: number | null; sn: string }): DeviceAccessRow {
    if (device.uid === ownerUid || device.uid === null) return device;
    const grant = this.deps.caches.shares
      .grantsOf(device.sn)
      .find((g) => g.uid === ownerUid && g.ownerUid === device.uid);
    const shared = liveShare(grant, this.deps.now());
    return shared ? { uid: device.uid, shared } : device;
  }

  /**
   * Queues the message for every rule that takes it; resolves when its rows are written (never rejects: a failed
   * write is counted as dropped and logged by the insert queue).
   *
   * `reading` names a message the device may send again, by its own time and values: its id is then derived from
   * the rule, the device and the reading instead of drawn at random. A device whose PUBACK was lost (the server
   * killed after storing its message, before or after queueing its forwards) sends it again, and that copy is
   * stored and forwarded under the same id as the first: a receiver that drops repeats by id gets each reading once.
   */
  private queue(
    device: DeviceRef,
    kind: ForwardKind,
    ts: number,
    data: Record<string, unknown>,
    reading?: string,
  ): Promise<void> | undefined {
    if (this.rules.size === 0) return;
    let waits: Promise<void>[] | undefined;
    this.owners.set(device.id, device.uid);
    let storedAt: Date | undefined;
    for (const rule of this.rules.values()) {
      if (!rule.kinds.has(kind)) continue;
      if (rule.productKey !== null && rule.productKey !== device.productKey) continue;
      if (rule.sns !== null && !rule.sns.has(device.sn)) continue;
      if (!ruleWatchesDevice(rule.owner, this.watched(rule.uid, device))) continue;
      if (rule.paused) {
        // A paused rule's queue is bounded: a target down for days must not fill the database.
        if (rule.backlog >= this.options.pausedBacklog) {
          if (this.stats.dropped++ % 1000 === 0)
            this.deps.log.warn(
              { rule: rule.ruleId, backlog: rule.backlog },
              'forwarding: paused rule has a full queue, messages dropped',
            );
          continue;
        }
        rule.backlog++;
      }
      storedAt ??= this.deps.now();
      const message: ForwardMessage = {
        id: reading === undefined ? randomUUID() : readingMessageId(rule.ruleId, device.id, kind, reading),
        rule_id: rule.ruleId,
        kind,
        product_key: device.productKey,
        sn: device.sn,
        ts,
        stored_at: storedAt.toISOString(),
        data,
      };
      let queued: Promise<unknown> | undefined;
      try {
        queued = this.inserts.tryAdd({
          ruleId: rule.ruleId,
          deviceId: device.id,
          sn: device.sn,
          kind,
          messageId: message.id,
          message,
          storedAt,
          runAt: storedAt,
        });
      } catch {
        // Stopped: the server is closing.
        queued = undefined;
      }
      if (queued) {
        this.stats.queued++;
        (waits ??= []).push(
          queued.then(
            () => undefined,
            () => undefined,
          ),
        );
      } else {
        this.stats.dropped++;
        this.deps.log.warn({ rule: rule.ruleId, sn: device.sn }, 'forwarding: queue full, message dropped');
      }
    }
    return waits && (waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined));
  }

  // --- the job kind -------------------------------------------------------------------------------------------------

  private kind(): JobKind<ForwardMessageRow[]> {
    return {
      name: FORWARDING_KIND,
      claim: (limit) => this.claim(limit),
      run: (rows, ctx) => this.run(rows, ctx.signal),
      // Unstarted jobs at a graceful stop: a direct lane's job takes its lane's waiting rows back with it.
      release: async (jobs) => this.giveBack(jobs.flatMap((rows) => [...rows, ...this.leaveLane(rows)])),
    };
  }

  // --- direct lanes -------------------------------------------------------------------------------------------------

  /**
   * Writes a batch of matched messages in one transaction. Rows of direct lanes are written taken under this
   * instance's lease (attempt 1) and handed to delivery once committed; the others pending, for the claim. Lanes
   * this instance is not sure of (new, `stored`, or direct but idle for `laneIdleMs`) are looked up first: any
   * undelivered row of the pair keeps its new rows behind it.
   */
  private async write(items: readonly NewMessage[]): Promise<void> {
    const nowMs = this.deps.now().getTime();
    const lease = new Date(nowMs + this.options.leaseMs);
    const unsure = new Map<string, { ruleId: number; deviceId: number }>();
    const turnsBefore = new Map<string, number>();
    for (const m of items) {
      const key = laneKey(m.ruleId, m.deviceId);
      const lane = this.lanes.get(key);
      turnsBefore.set(key, lane?.turns ?? 0);
      if (lane?.mode === 'direct' && (lane.busy || nowMs - lane.usedAt < this.options.laneIdleMs)) continue;
      unsure.set(key, { ruleId: m.ruleId, deviceId: m.deviceId });
    }
    const { values, ids, waiting } = await this.deps.db.transaction(async (tx) => {
      const waiting = new Set<string>();
      if (unsure.size > 0) {
        const pairs = sql.join(
          [...unsure.values()].map((p) => sql`(${p.ruleId}::int, ${p.deviceId}::int)`),
          sql`, `,
        );
        const found = (await tx.execute(sql`
          select distinct rule_id, device_id from forward_messages
          where status in ('pending', 'taken') and (rule_id, device_id) in (${pairs})
        `)) as unknown as { rows: { rule_id: number; device_id: number }[] };
        for (const r of found.rows) waiting.add(laneKey(Number(r.rule_id), Number(r.device_id)));
      }
      const values = items.map((m): NewMessage => {
        const key = laneKey(m.ruleId, m.deviceId);
        const direct = unsure.has(key) ? !waiting.has(key) : this.lanes.get(key)?.mode === 'direct';
        return direct ? { ...m, status: 'taken', attempts: 1, lockedUntil: lease } : m;
      });
      const ids = await tx.insert(forwardMessages).values(values).returning({ id: forwardMessages.id });
      return { values, ids, waiting };
    });
    for (const key of unsure.keys()) {
      const lane = this.lane(key, nowMs);
      // A lane that turned `stored` during the write (a delivery failed) stays so: its rows go back below.
      lane.mode = waiting.has(key) || lane.turns !== turnsBefore.get(key) ? 'stored' : 'direct';
    }
    let pending = false;
    const back: ForwardMessageRow[] = [];
    const started = new Set<Lane>();
    values.forEach((v, i) => {
      if (v.status !== 'taken') {
        pending = true;
        return;
      }
      const row: ForwardMessageRow = {
        id: Number(ids[i]!.id),
        ruleId: v.ruleId,
        deviceId: v.deviceId,
        sn: v.sn,
        kind: v.kind,
        messageId: v.messageId,
        message: v.message,
        status: 'taken',
        attempts: 1,
        runAt: v.runAt ?? lease,
        lockedUntil: lease,
        lastError: null,
        storedAt: v.storedAt,
        diedAt: null,
      };
      const key = laneKey(v.ruleId, v.deviceId);
      const lane = this.lane(key, nowMs);
      if (lane.mode !== 'direct' || lane.turns !== turnsBefore.get(key)) {
        back.push(row);
        return;
      }
      lane.queue.push(row);
      lane.usedAt = nowMs;
      if (!lane.busy) started.add(lane);
    });
    for (const lane of started) back.push(...this.nextOfLane(lane));
    if (back.length > 0) await this.giveBack(back);
    if (pending || back.length > 0) this.worker.wake();
  }

  private lane(key: string, nowMs: number): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { key, mode: 'stored', queue: [], busy: false, usedAt: nowMs, turns: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /**
   * Hands a direct lane's next rows to the worker as one job, or ends the lane's run when none wait. Answers the rows
   * the worker did not take (it is stopping): the caller gives them back.
   */
  private nextOfLane(lane: Lane): ForwardMessageRow[] {
    const rows = lane.queue.splice(0, this.options.batchPerDevice);
    if (rows.length === 0) {
      lane.busy = false;
      return [];
    }
    lane.busy = true;
    this.laneOf.set(rows, lane);
    if (this.worker.adopt([rows])) return [];
    return [...rows, ...this.leaveLane(rows)];
  }

  /** The lane of a direct job stops taking messages directly; answers its waiting rows, for the caller to give back. */
  private leaveLane(rows: ForwardMessageRow[]): ForwardMessageRow[] {
    const lane = this.laneOf.get(rows);
    if (!lane) return [];
    lane.mode = 'stored';
    lane.turns++;
    lane.busy = false;
    return lane.queue.splice(0);
  }

  /** Drops lanes idle for a while (their state is checked again on their next message anyway). */
  private sweepLanes(nowMs: number): void {
    if (this.lanes.size < 1024) return;
    for (const [key, lane] of this.lanes)
      if (!lane.busy && lane.queue.length === 0 && nowMs - lane.usedAt > this.options.laneIdleMs)
        this.lanes.delete(key);
  }

  /** Rows claimed and never tried go back to pending, their attempt uncounted. */
  private async giveBack(rows: readonly ForwardMessageRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.deps.db
      .update(forwardMessages)
      .set({ status: 'pending', lockedUntil: null, attempts: sql`${forwardMessages.attempts} - 1` })
      .where(
        and(
          eq(forwardMessages.status, 'taken'),
          sql`(${forwardMessages.id}, ${forwardMessages.attempts}) in (${sql.join(
            rows.map((r) => sql`(${r.id}::bigint, ${r.attempts}::int)`),
            sql`, `,
          )})`,
        ),
      );
  }

  /**
   * Jobs of up to `batchPerDevice` consecutive rows of one rule and device, oldest first, for `limit` devices: the
   * claimable prefix of each device's undelivered rows (running rules only). A row is claimable when pending and
   * past `run_at`, or taken with its lease run out; the prefix stops at the first row that is not, so a row under
   * lease (or waiting for its retry) holds back every later row of its device.
   */
  private async claim(limit: number): Promise<ForwardMessageRow[][]> {
    const now = this.deps.now();
    const dueBy = new Date(now.getTime() + 1).toISOString();
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + this.options.leaseMs);
    /** Each candidate's place among its device's candidates (0, 1, ...). */
    const position = new Map<number, number>();
    const seen = new Map<string, number>();
    const rows = await this.deps.db.transaction(async (tx) => {
      // The `limit` queues (rule, device) whose oldest row is oldest, from the queue index (no sort of the whole
      // backlog), then the head of each: its first `batchPerDevice` rows. Only their claimable prefix is taken.
      const heads = (
        (await tx.execute(sql`
          select q.id, q.rule_id, q.device_id,
            case when (q.status = 'pending' and q.run_at < ${dueBy}::timestamptz)
                   or (q.status = 'taken' and q.locked_until < ${nowIso}::timestamptz) then 1 else 0 end as ok
          from (
            select d.rule_id, d.device_id, d.first_id from (
              select m.rule_id, m.device_id, min(m.id) as first_id
              from forward_messages m
              where m.status in ('pending', 'taken')
              group by m.rule_id, m.device_id
            ) d
            join forward_rules r on r.id = d.rule_id and r.enabled and r.paused_at is null
            order by d.first_id
            limit ${limit}
          ) d
          cross join lateral (
            select m.id, m.rule_id, m.device_id, m.status, m.run_at, m.locked_until
            from forward_messages m
            where m.rule_id = d.rule_id and m.device_id = d.device_id and m.status in ('pending', 'taken')
            order by m.id
            limit ${this.options.batchPerDevice}
          ) q
          order by q.id
        `)) as unknown as { rows: { id: number | string; rule_id: number; device_id: number; ok: number }[] }
      ).rows;
      // A queue's prefix ends at its first row that is not claimable (under lease, or waiting for its retry).
      const blocked = new Set<string>();
      const found: typeof heads = [];
      for (const r of heads) {
        const key = `${r.rule_id}:${r.device_id}`;
        if (blocked.has(key)) continue;
        if (Number(r.ok) !== 1) blocked.add(key);
        else found.push(r);
      }
      if (found.length === 0) return [];
      for (const r of found) {
        const key = `${r.rule_id}:${r.device_id}`;
        const n = seen.get(key) ?? 0;
        position.set(Number(r.id), n);
        seen.set(key, n + 1);
      }
      const candidates = found.map((r) => Number(r.id));
      const locked = await tx
        .select({
          id: forwardMessages.id,
          attempts: forwardMessages.attempts,
          status: forwardMessages.status,
        })
        .from(forwardMessages)
        .where(inArray(forwardMessages.id, candidates))
        .orderBy(forwardMessages.id)
        .for('update', { skipLocked: true });
      const exhausted = locked.filter((r) => r.status === 'taken' && r.attempts >= this.options.maxAttempts);
      if (exhausted.length > 0) {
        await tx
          .update(forwardMessages)
          .set({
            status: 'dead',
            lockedUntil: null,
            diedAt: now,
            lastError: sql`'interrupted during the last try (' || coalesce(${forwardMessages.lastError}, 'worker stopped') || ')'`,
          })
          .where(
            inArray(
              forwardMessages.id,
              exhausted.map((r) => r.id),
            ),
          );
      }
      const take = locked.filter((r) => !exhausted.includes(r)).map((r) => r.id);
      if (take.length === 0) return [];
      // Re-checked under the lock: another instance may have claimed or finished one since the rows were read.
      return tx
        .update(forwardMessages)
        .set({ status: 'taken', attempts: sql`${forwardMessages.attempts} + 1`, lockedUntil: lease })
        .where(
          and(
            inArray(forwardMessages.id, take),
            sql`((${forwardMessages.status} = 'pending' and ${forwardMessages.runAt} < ${dueBy}::timestamptz)
              or (${forwardMessages.status} = 'taken' and ${forwardMessages.lockedUntil} < ${nowIso}::timestamptz))`,
          ),
        )
        .returning();
    });
    // One job per rule and device, its rows in order. A gap (a row another instance took meanwhile, or one that went
    // dead above) ends the batch there: what follows it goes back, so nothing overtakes a row of its own device.
    const jobs = new Map<string, ForwardMessageRow[]>();
    const sorted = [...rows].sort((a, b) => a.id - b.id);
    const back: ForwardMessageRow[] = [];
    for (const row of sorted) {
      const key = `${row.ruleId}:${row.deviceId}`;
      const list = jobs.get(key) ?? [];
      // The n-th row of a job must be its device's n-th candidate: otherwise one before it is missing.
      if (position.get(row.id) !== list.length) {
        back.push(row);
        continue;
      }
      list.push(row);
      jobs.set(key, list);
    }
    if (back.length > 0) await this.giveBack(back);
    return [...jobs.values()];
  }

  private ruleFor(row: ForwardMessageRow): RuleEntry | undefined {
    return this.rules.get(row.ruleId);
  }

  /**
   * Sends one message to a rule's target, or several of one device in one request when an HTTP rule batches (also
   * the test send's path).
   */
  send(
    rule: LoadedTarget,
    messages: ForwardMessage | readonly ForwardMessage[],
    signal?: AbortSignal,
  ): Promise<SendOutcome> {
    if (rule.target.kind === 'http') return sendHttp(this.policy(), rule, messages, signal);
    const list = Array.isArray(messages)
      ? (messages as readonly ForwardMessage[])
      : [messages as ForwardMessage];
    if (list.length !== 1) throw new Error('an MQTT target takes one message at a time');
    return this.mqtt.send(rule, list[0]!);
  }

  /**
   * Delivers a device's batch in order. The first failure is written (retry later or dead letter) and the rows after
   * it go back untried; successes are deleted and counted in group commits, awaited before the job ends.
   */
  private async run(rows: ForwardMessageRow[], signal: AbortSignal): Promise<void> {
    const first = rows[0];
    if (!first) return;
    const lane = this.laneOf.get(rows);
    let rule = this.ruleFor(first);
    if (!rule) {
      // Changed on another instance a moment ago, or disabled: read again before judging.
      await this.reload();
      rule = this.ruleFor(first);
    }
    const nowMs = this.deps.now().getTime();
    // Disabled, deleted or paused: the rows go back and wait (the claim does not take them while the rule is off). A
    // direct job whose lease runs short (a long wait for a slot) goes back too, before the claim could take it.
    const leaseShort =
      lane !== undefined && (first.lockedUntil?.getTime() ?? 0) - nowMs < this.options.leaseMs / 2;
    if (!rule || rule.paused || leaseShort) {
      await this.giveBack([...rows, ...this.leaveLane(rows)]);
      this.worker.wake();
      return;
    }
    // The rule's owner must still be allowed to read the device now (a share ended, the device changed hands):
    // messages queued while it could are withdrawn, not sent.
    if (!(await this.mayRead(rule, first))) {
      await this.withdraw(rows);
      if (lane) {
        const back = this.nextOfLane(lane);
        if (back.length > 0) await this.giveBack(back);
      }
      return;
    }
    const done: Promise<void>[] = [];
    // One request per message, or per `batch_max` consecutive messages when the rule batches: each request is one
    // attempt of all its messages.
    const size = batchMaxOf(rule.target);
    for (let i = 0; i < rows.length; i += size) {
      const chunk = rows.slice(i, i + size);
      const outcome = await this.send(
        rule,
        chunk.map((r) => r.message),
        signal,
      );
      if (signal.aborted) return;
      if (outcome.ok) {
        const nowMs = this.deps.now().getTime();
        for (const row of chunk) {
          this.stats.delivered++;
          done.push(this.done.add({ row, latencyMs: Math.max(0, nowMs - row.storedAt.getTime()) }));
        }
        continue;
      }
      await this.markFailed(rule, chunk, outcome);
      await this.giveBack([...rows.slice(i + chunk.length), ...this.leaveLane(rows)]);
      await Promise.all(done);
      this.worker.wake();
      return;
    }
    await Promise.all(done);
    if (lane) {
      // The lane's next rows, in order, after these are counted delivered.
      lane.usedAt = this.deps.now().getTime();
      const back = this.nextOfLane(lane);
      if (back.length > 0) await this.giveBack(back);
      this.sweepLanes(lane.usedAt);
      return;
    }
    // The device's next messages are due now; look at once instead of at the next poll.
    this.worker.wake();
  }

  /** Whether the rule's owner may read the row's device now (the authorisation layer's rule, live share). */
  private async mayRead(rule: RuleEntry, row: ForwardMessageRow): Promise<boolean> {
    let owner = this.owners.get(row.deviceId);
    if (owner === undefined) {
      const [d] = await this.deps.db
        .select({ uid: devices.uid })
        .from(devices)
        .where(eq(devices.id, row.deviceId));
      // A deleted device: nobody reads it.
      if (!d) return false;
      owner = d.uid;
      this.owners.set(row.deviceId, owner);
    }
    return ruleWatchesDevice(rule.owner, this.watched(rule.uid, { uid: owner, sn: row.sn }));
  }

  /** Deletes rows their rule may no longer send (still ours), counted as withdrawn. */
  private async withdraw(rows: readonly ForwardMessageRow[]): Promise<void> {
    if (rows.length === 0) return;
    const gone = await this.deps.db
      .delete(forwardMessages)
      .where(
        and(
          eq(forwardMessages.status, 'taken'),
          sql`(${forwardMessages.id}, ${forwardMessages.attempts}) in (${sql.join(
            rows.map((r) => sql`(${r.id}::bigint, ${r.attempts}::int)`),
            sql`, `,
          )})`,
        ),
      )
      .returning({ id: forwardMessages.id });
    this.stats.withdrawn += gone.length;
    this.deps.log.info(
      { rule: rows[0]!.ruleId, sn: rows[0]!.sn, count: gone.length },
      'forwarding: messages withdrawn, the rule may no longer read the device',
    );
  }

  private mine(row: ForwardMessageRow) {
    return and(
      eq(forwardMessages.id, row.id),
      eq(forwardMessages.status, 'taken'),
      eq(forwardMessages.attempts, row.attempts),
    );
  }

  /** Deletes delivered rows that are still ours, counts them, and ends their rules' runs of failures. */
  private async markDelivered(items: readonly Done[]): Promise<void> {
    const now = this.deps.now();
    const bucket = minute(now);
    await this.deps.db.transaction(async (tx) => {
      const pairs = sql.join(
        items.map((d) => sql`(${d.row.id}::bigint, ${d.row.attempts}::int)`),
        sql`, `,
      );
      const deleted = await tx
        .delete(forwardMessages)
        .where(
          and(
            eq(forwardMessages.status, 'taken'),
            sql`(${forwardMessages.id}, ${forwardMessages.attempts}) in (${pairs})`,
          ),
        )
        .returning({ id: forwardMessages.id });
      const gone = new Set(deleted.map((d) => Number(d.id)));
      const perRule = new Map<number, { n: number; sum: number; max: number }>();
      for (const d of items) {
        if (!gone.has(d.row.id)) continue;
        const s = perRule.get(d.row.ruleId) ?? { n: 0, sum: 0, max: 0 };
        s.n++;
        s.sum += d.latencyMs;
        s.max = Math.max(s.max, d.latencyMs);
        perRule.set(d.row.ruleId, s);
      }
      if (perRule.size === 0) return;
      await tx
        .insert(forwardStats)
        .values(
          [...perRule].map(([ruleId, s]) => ({
            ruleId,
            bucket,
            delivered: s.n,
            latencySum: s.sum,
            latencyMax: Math.min(s.max, 2_147_483_647),
          })),
        )
        .onConflictDoUpdate({
          target: [forwardStats.ruleId, forwardStats.bucket],
          set: {
            delivered: sql`${forwardStats.delivered} + excluded.delivered`,
            latencySum: sql`${forwardStats.latencySum} + excluded.latency_sum`,
            latencyMax: sql`greatest(${forwardStats.latencyMax}, excluded.latency_max)`,
          },
        });
      await tx
        .update(forwardRules)
        .set({ failingSince: null })
        .where(
          and(inArray(forwardRules.id, [...perRule.keys()]), sql`${forwardRules.failingSince} is not null`),
        );
    });
  }

  /**
   * Writes a failed attempt of the messages of one request (one, or a batch): all retried after the backoff, or all
   * dead letters (a refusal, or the last attempt of the most tried one).
   */
  private async markFailed(
    rule: RuleEntry,
    rows: readonly ForwardMessageRow[],
    outcome: SendOutcome,
  ): Promise<void> {
    const row = rows[0]!;
    const now = this.deps.now();
    const error = (outcome.error ?? 'failed').slice(0, 500);
    const decision = decideRetry(
      this.options.backoff,
      { attempts: Math.max(...rows.map((r) => r.attempts)), maxAttempts: this.options.maxAttempts },
      outcome.retryable,
    );
    let paused = false;
    await this.deps.db.transaction(async (tx) => {
      const changed = await tx
        .update(forwardMessages)
        .set(
          decision.retry
            ? {
                status: 'pending',
                lockedUntil: null,
                lastError: error,
                runAt: new Date(now.getTime() + decision.delayMs),
              }
            : { status: 'dead', lockedUntil: null, lastError: error, diedAt: now },
        )
        .where(or(...rows.map((r) => this.mine(r))))
        .returning({ id: forwardMessages.id });
      if (changed.length === 0) return;
      await tx
        .insert(forwardStats)
        .values({
          ruleId: row.ruleId,
          bucket: minute(now),
          failed: 1,
          dead: decision.retry ? 0 : changed.length,
        })
        .onConflictDoUpdate({
          target: [forwardStats.ruleId, forwardStats.bucket],
          set: {
            failed: sql`${forwardStats.failed} + 1`,
            dead: sql`${forwardStats.dead} + excluded.dead`,
          },
        });
      const [r] = await tx
        .update(forwardRules)
        .set({
          failingSince: sql`coalesce(${forwardRules.failingSince}, ${now.toISOString()}::timestamptz)`,
          lastError: error,
        })
        .where(eq(forwardRules.id, row.ruleId))
        .returning({ failingSince: forwardRules.failingSince });
      if (!r?.failingSince || now.getTime() - r.failingSince.getTime() < this.options.pauseAfterMs) return;
      const pausedRows = await tx
        .update(forwardRules)
        .set({ pausedAt: now, pausedReason: error })
        .where(
          and(eq(forwardRules.id, row.ruleId), isNull(forwardRules.pausedAt), eq(forwardRules.enabled, true)),
        )
        .returning({ id: forwardRules.id });
      if (pausedRows.length === 0) return;
      paused = true;
      await addInboxMessages(tx, [
        {
          uid: rule.uid,
          kind: 'forward_paused',
          params: { rule_id: rule.ruleId, rule_name: rule.name, error },
          target: { type: 'forward_rule', key: String(rule.ruleId) },
          dedupeKey: `forward_paused:${rule.ruleId}:${now.getTime()}`,
        },
      ]);
    });
    if (decision.retry) this.stats.failed++;
    else this.stats.dead += rows.length;
    if (paused) {
      this.deps.log.warn({ rule: rule.ruleId, error }, 'forwarding: rule paused, its target keeps failing');
      rule.paused = true;
      await this.deps.channels.notify(FORWARD_RULES_CHANNEL, '').catch(() => undefined);
    }
  }
}

export type { StoredTarget };

/**
 * The message id of a reading (see `queue`): SHA-256 of the rule, the device, the kind and the reading, written as a
 * UUID (version 8, name-based), so it looks like the random ones.
 */
export function readingMessageId(
  ruleId: number,
  deviceId: number,
  kind: ForwardKind,
  reading: string,
): string {
  const h = createHash('sha256').update(`${ruleId}\u0000${deviceId}\u0000${kind}\u0000${reading}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
