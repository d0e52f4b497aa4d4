import { sql } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import type { IPublishPacket, Packet } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic, parseTopic, upTopic, type DownKind, type UpKind } from '@cellhub/contract/protocol';
import { buildTestApp, type TestApp } from '../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
} from '../test/gateway-test-kit';
import { RawMqtt, type RawTarget } from '../test/raw-mqtt';
import { figure, sized } from './figures';
import { buildCorpus, type CorpusEntry, propertyTopic, REQUIRED_KINDS, validConnect } from './mqtt-corpus';

// Issue 20, "MQTT faults": every malformed CONNECT and packet kind for MQTT 3.1.1 and 5.0 (a corpus of raw byte
// sequences, mqtt-corpus.ts) sent to the embedded broker over TCP: none accepted, the server healthy afterwards, its
// memory flat over repeated passes. Then the topic ACL: a signed-in device subscribing to and publishing on other
// devices' topics, other products' topics and every wildcard form gets nothing and stores nothing.

let t: TestApp;
let owner: { token: string; uid: number };
let target: RawTarget;
/** Devices the corpus connects as, one per entry running at once (no takeovers between entries). */
let pool: TestDevice[];
/** The "other" device of the corpus (its client id and secret are used against the pool's). */
let other: TestDevice;

const POOL = 24;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.createUser();
  target = { tcp: t.app.broker.port! };
  const sns = Array.from({ length: POOL + 1 }, (_, i) => `MQF-${i}`);
  const devs = await createDevices(t, owner.token, sns);
  pool = devs.slice(0, POOL);
  other = devs[POOL]!;
});
afterAll(async () => {
  await t.close();
});

const rowsOf = async <T>(query: ReturnType<typeof sql>): Promise<T[]> =>
  ((await t.app.deps.db.execute(query)) as unknown as { rows: T[] }).rows;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds or the connection closed or `ms` passed; says which came first. */
async function settle(
  conn: RawMqtt,
  check: () => boolean,
  ms: number,
): Promise<'check' | 'closed' | 'timeout'> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return 'check';
    if (conn.isClosed) return 'closed';
    if (Date.now() >= end) return 'timeout';
    await Promise.race([conn.closed, sleep(5)]);
  }
}

const connackCode = (p: Packet) => (p.cmd === 'connack' ? (p.reasonCode ?? p.returnCode ?? 0) : -1);

interface Outcome {
  entry: CorpusEntry;
  marker: string;
  /** Why the entry counts as accepted (empty: it was not). */
  accepted: string;
  /** The connection neither closed nor answered, even after its end was sent. */
  hung: boolean;
  /** How long the entry took, connection to close. */
  ms: number;
}

/** How long a closing server may take before the connection counts as kept open. */
const CLOSE_WITHIN_MS = 3000;

async function runEntry(e: CorpusEntry, d: TestDevice, marker: string): Promise<Outcome> {
  const conn = await RawMqtt.open(target, e.version);
  const t0 = Date.now();
  const out: Outcome = { entry: e, marker, accepted: '', hung: false, ms: 0 };
  try {
    let base = 0;
    if (e.stage === 'session') {
      conn.send(validConnect(d, e.version));
      // Generous: on a loaded machine 24 connections at once wait behind the database for their CONNACKs.
      await conn.until(
        (ps) => ps.some((p) => p.cmd === 'connack'),
        `CONNACK of ${d.sn} before ${e.name}`,
        30_000,
      );
      const code = connackCode(conn.packets[0]!);
      if (code !== 0) throw new Error(`${e.name}: the valid CONNECT of ${d.sn} was refused with ${code}`);
      base = conn.packets.length;
    }
    conn.send(e.bytes(d, other, marker));
    if (e.fin) conn.stream.end();
    const after = () => conn.packets.slice(base);
    if (e.expect === 'refuse') {
      const accepted = () => conn.packets.some((p) => connackCode(p) === 0);
      let r = await settle(conn, accepted, e.fin ? CLOSE_WITHIN_MS : 1500);
      if (r === 'timeout') {
        // Waiting for bytes that never come (a length announcing more): end the connection.
        conn.stream.end();
        r = await settle(conn, accepted, CLOSE_WITHIN_MS);
      }
      if (accepted()) out.accepted = 'CONNACK success';
      out.hung = r === 'timeout';
    } else if (e.expect === 'close') {
      // Anything but a DISCONNECT (5.0) answering a packet the standard says must close the connection: kept working.
      const answered = () => after().some((p) => p.cmd !== 'disconnect');
      const r = await settle(conn, answered, CLOSE_WITHIN_MS);
      if (r === 'check')
        out.accepted = `answered ${after()
          .map((p) => p.cmd)
          .join(',')}`;
      else if (r === 'timeout' && !e.fin) out.accepted = 'connection kept open';
      out.hung = r === 'timeout' && !!e.fin;
    } else {
      // May stay open; a PINGREQ after it shows the server read past it before the connection ends.
      if (!e.fin) {
        conn.send(Buffer.from([0xc0, 0x00]));
        await settle(conn, () => after().some((p) => p.cmd === 'pingresp'), CLOSE_WITHIN_MS);
        conn.stream.end();
      }
      out.hung = (await settle(conn, () => false, CLOSE_WITHIN_MS)) === 'timeout';
    }
  } finally {
    conn.destroy();
  }
  out.ms = Date.now() - t0;
  return out;
}

/** Messages the broker routed (seen by a server-side subscription to `#`), by the payloads they carried. */
const routed: string[] = [];

/**
 * Runs the corpus once, POOL entries at a time (each on its own pool device); returns the outcomes and the memory
 * (heap used, RSS) sampled after each group.
 */
async function pass(corpus: CorpusEntry[], n: number): Promise<{ outcomes: Outcome[]; samples: Mem[] }> {
  const outcomes: Outcome[] = [];
  const samples: Mem[] = [];
  for (let i = 0; i < corpus.length; i += POOL) {
    const chunk = corpus.slice(i, i + POOL);
    outcomes.push(...(await Promise.all(chunk.map((e, j) => runEntry(e, pool[j]!, `mqf_${n}_${i + j}`)))));
    samples.push(memNow());
  }
  return { outcomes, samples };
}

/** A real device connects, publishes a property with QoS 1 (acknowledged once stored) and reads it back. */
async function deviceStillWorks(d: TestDevice, value: number): Promise<boolean> {
  const c: MqttClient = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
  try {
    await c.publishAsync(propertyTopic(d), JSON.stringify({ params: { health: value } }), { qos: 1 });
    const res = await t.inject({ method: 'GET', url: `/api/devices/${d.sn}/properties`, token: owner.token });
    const data = (res.json() as { data: { key: string; value: unknown }[] }).data;
    return data.some((p) => p.key === 'health' && p.value === value);
  } finally {
    await c.endAsync(true);
  }
}

/** Rows of any table that stored something a corpus entry carried (its marker as a property key). */
async function markerRows(): Promise<string[]> {
  const rows = await rowsOf<{ key: string }>(sql`
    select key from device_properties where key like 'mqf\\_%'
    union all select key from device_property_latest where key like 'mqf\\_%'`);
  return rows.map((r) => r.key);
}

interface Mem {
  heap: number;
  rss: number;
}
function memNow(): Mem {
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

describe('malformed MQTT corpus', () => {
  it(
    'accepts none of the corpus, stays healthy, and keeps its memory flat',
    async () => {
      const started = Date.now();
      const corpus = buildCorpus(20, sized(15, 90));
      expect(new Set(corpus.map((e) => e.name)).size).toBe(corpus.length);
      expect(corpus.length).toBeGreaterThanOrEqual(200);
      const hand = new Set(corpus.filter((e) => e.source === 'hand').map((e) => e.kind));
      const generated = new Set(corpus.filter((e) => e.source === 'generated').map((e) => e.kind));
      for (const kind of REQUIRED_KINDS) expect(hand.has(kind) || generated.has(kind), kind).toBe(true);
      for (const v of [4, 5]) expect(corpus.filter((e) => e.version === v).length).toBeGreaterThan(90);

      const aedes = t.app.broker.aedes!;
      const deliver = (packet: IPublishPacket, cb: () => void) => {
        const text = Buffer.isBuffer(packet.payload)
          ? packet.payload.toString('latin1')
          : String(packet.payload);
        // What a device could receive: not a `$` topic (a dropped message goes to `$drop/...`), not an uplink (no
        // device may subscribe to one, and the gateway counts an unknown kind of its own device's as dropped).
        const deliverable = !packet.topic.startsWith('$') && parseTopic(packet.topic)?.direction !== 'up';
        if (deliverable && text.includes('mqf_')) routed.push(`${packet.topic} ${text}`);
        cb();
      };
      await new Promise<void>((resolve) => aedes.subscribe('#', deliver as never, resolve));

      // Memory: with a forced GC (node --expose-gc) the heap after the warm-up pass against the heap after the last
      // one; without it the heap swings between collections, so the median of the samples taken during the first pass
      // after the warm-up against the median of those taken during the last pass.
      const gc = (globalThis as { gc?: () => void }).gc;
      const passes = sized(2, 8);
      const accepted = new Map<string, string>();
      const hung = new Set<string>();
      const passMs: number[] = [];
      const perPass: Mem[] = [];
      for (let n = 0; n <= passes; n++) {
        const t0 = Date.now();
        const { outcomes, samples } = await pass(corpus, n);
        passMs.push(Date.now() - t0);
        for (const o of outcomes) {
          if (o.accepted) accepted.set(o.entry.name, o.accepted);
          if (o.hung) hung.add(o.entry.name);
        }
        // A stored marker is an accepted entry too: the sentinel device's property, stored after them, is read back.
        expect(await deviceStillWorks(other, n)).toBe(true);
        for (const key of await markerRows()) {
          const i = Number(key.split('_')[2]);
          accepted.set(corpus[i]!.name, `stored ${key}`);
        }
        for (const r of routed.splice(0)) {
          const i = Number(/mqf_\d+_(\d+)/.exec(r)?.[1]);
          accepted.set(corpus[i]!.name, `routed ${r.slice(0, 120)}`);
        }
        if (gc) {
          gc();
          perPass.push(memNow());
        } else {
          perPass.push({ heap: median(samples.map((x) => x.heap)), rss: median(samples.map((x) => x.rss)) });
        }
      }
      await new Promise<void>((resolve) => aedes.unsubscribe('#', deliver as never, resolve));

      const health = await t.inject({ method: 'GET', url: '/api/health' });
      const healthy = health.statusCode === 200 && (await deviceStillWorks(pool[0]!, 4242));
      const first = gc ? perPass[0]! : perPass[1]!;
      const last = perPass[perPass.length - 1]!;
      const heapGrowth = ((last.heap - first.heap) / first.heap) * 100;
      const rssGrowth = ((last.rss - first.rss) / first.rss) * 100;
      const wall = Date.now() - started;
      const gaps = corpus.filter((e) => e.gap);
      const known = [...accepted].filter(([name]) => gaps.some((g) => g.name === name));
      const unknown = [...accepted].filter(([name]) => !gaps.some((g) => g.name === name));

      figure({
        name: 'mqtt.corpus_size',
        value: corpus.length,
        unit: 'sequences',
        target: '>= 200',
        detail:
          `${corpus.filter((e) => e.source === 'hand').length} hand-written, ` +
          `${corpus.filter((e) => e.source === 'generated').length} generated (seed 20); ` +
          `${corpus.filter((e) => e.version === 4).length} MQTT 3.1.1, ${corpus.filter((e) => e.version === 5).length} MQTT 5.0; ` +
          `${passes + 1} passes (${passMs.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s), ${(wall / 1000).toFixed(1)} s in all`,
      });
      figure({
        name: 'mqtt.malformed_accepted',
        value: unknown.length,
        unit: 'count',
        target: '0',
        detail: unknown.length
          ? unknown.map(([k, v]) => `${k}: ${v}`).join('; ')
          : `none of ${corpus.length} x ${passes + 1} (no CONNACK success, no answer or open connection where the standard closes it, no row, no deliverable message); ${hung.size} hung`,
      });
      figure({
        name: 'mqtt.malformed_accepted_known',
        value: known.length,
        unit: 'count',
        target: '0',
        detail: gaps
          .map((g) => `${g.name} ${known.some(([k]) => k === g.name) ? 'accepted' : 'refused'}: ${g.gap}`)
          .join('; '),
      });
      figure({
        name: 'mqtt.health_after',
        value: healthy ? 'ok' : 'failed',
        target: 'ok',
        detail: `GET /api/health ${health.statusCode}; a device connected, published a property with QoS 1 and it was stored`,
      });
      figure({
        name: 'mqtt.memory_growth',
        value: Number(heapGrowth.toFixed(1)),
        unit: '%',
        target: '< 10 %',
        detail: gc
          ? `heap used after GC: ${(first.heap / 1e6).toFixed(1)} MB after the warm-up pass, ${(last.heap / 1e6).toFixed(1)} MB after ${passes} more; RSS ${rssGrowth.toFixed(1)} %`
          : `no forced GC (node --expose-gc): median heap used during the first pass after the warm-up ${(first.heap / 1e6).toFixed(1)} MB, during pass ${passes} ${(last.heap / 1e6).toFixed(1)} MB; RSS ${(first.rss / 1e6).toFixed(0)} -> ${(last.rss / 1e6).toFixed(0)} MB (${rssGrowth.toFixed(1)} %)`,
      });

      expect(unknown).toEqual([]);
      expect([...hung]).toEqual([]);
      expect(healthy).toBe(true);
      expect(heapGrowth).toBeLessThan(10);
    },
    sized(120_000, 1_200_000),
  );
});

// --- topic ACL ---------------------------------------------------------------------------------------------------

interface Template {
  /** A topic filter to subscribe to. */
  filter: string;
  /** Whose topic it is, in words. */
  of: string;
}

/** What an attacker publishes on a foreign topic: the payload its kind would store, with a marker in it. */
function aclPayload(kind: string, sub: string, i: number): Buffer {
  const marker = `acl_${i}`;
  const body: Record<string, unknown> = kind.includes('property')
    ? { params: { [marker]: 1 } }
    : kind.includes('event')
      ? { event: marker, params: { [marker]: 1 } }
      : kind.includes('status')
        ? { online: 1 }
        : kind.includes('raw')
          ? { data: '61636c' }
          : kind.includes('info')
            ? { fw_version: marker }
            : kind.includes('config')
              ? { version: 99, config: {} }
              : kind.includes('ota')
                ? { id: marker, status: 4 }
                : { id: marker, code: 0, type: 'hex', data: '0102', params: { [marker]: 1 } };
  return Buffer.from(JSON.stringify(kind.startsWith('sub_') ? { sub, ...body } : body));
}

describe('topic ACL', () => {
  it('delivers nothing on foreign topics and stores nothing a device publishes there', async () => {
    const stranger = await t.createUser();
    const [a4, a5, victim] = await createDevices(t, owner.token, ['ACL-A4', 'ACL-A5', 'ACL-V'], {
      name: 'ACL product',
    });
    const [foreign] = await createDevices(t, stranger.token, ['ACL-W'], { name: 'Stranger product' });
    const v = victim!;
    const w = foreign!;
    const pk = v.productKey;

    const upKinds: UpKind[] = [
      'property',
      'info',
      'status',
      'config',
      'config_get',
      'cmd_reply',
      'ota',
      'raw',
      'event',
      'sub_property',
      'sub_status',
      'sub_raw',
      'sub_event',
      'sub_config',
      'sub_cmd_reply',
    ];
    const downKinds: DownKind[] = [
      'property_reply',
      'config',
      'cmd',
      'ota',
      'raw',
      'tunnel',
      'sub_cmd',
      'sub_raw',
      'sub_config',
    ];
    // Concrete foreign topics: every kind of the victim (same product, same owner), and another owner's product.
    const concrete: { topic: string; kind: string; of: string }[] = [
      ...upKinds.map((k) => ({ topic: upTopic(pk, v.sn, k), kind: k, of: 'same product' })),
      ...downKinds.map((k) => ({ topic: downTopic(pk, v.sn, k), kind: k, of: 'same product' })),
      ...(['property', 'event', 'status', 'raw'] as const).map((k) => ({
        topic: upTopic(w.productKey, w.sn, k),
        kind: k,
        of: 'another product',
      })),
      ...(['cmd', 'config', 'raw', 'ota'] as const).map((k) => ({
        topic: downTopic(w.productKey, w.sn, k),
        kind: k,
        of: 'another product',
      })),
      { topic: `${upTopic(pk, v.sn, 'property')}/x`, kind: 'property', of: 'same product, deeper' },
      { topic: `DEV/${pk}/${v.sn}/up/property`, kind: 'property', of: 'same product, other case' },
      { topic: `$SYS/acl/${v.sn}`, kind: 'sys', of: 'broker' },
      { topic: `$drop/${v.sn}`, kind: 'drop', of: 'gateway drop topic' },
    ];
    const wildcards: Template[] = [
      { filter: `dev/${pk}/${v.sn}/#`, of: 'victim, all' },
      { filter: `dev/${pk}/${v.sn}/down/#`, of: 'victim, downlinks' },
      { filter: `dev/${pk}/${v.sn}/down/+`, of: 'victim, downlinks' },
      { filter: `dev/${pk}/${v.sn}/up/#`, of: 'victim, uplinks' },
      { filter: `dev/${pk}/+/down/cmd`, of: 'product, commands' },
      { filter: `dev/${pk}/+/up/property`, of: 'product, properties' },
      { filter: `dev/${pk}/#`, of: 'product' },
      { filter: `dev/+/${v.sn}/down/#`, of: 'victim in any product' },
      { filter: `dev/${w.productKey}/#`, of: 'another product' },
      { filter: 'dev/#', of: 'every device' },
      { filter: 'dev/+/+/down/+', of: 'every downlink' },
      { filter: 'dev/+/+/up/+', of: 'every uplink' },
      { filter: '#', of: 'everything' },
      { filter: '+/#', of: 'everything' },
      { filter: '+/+/+', of: 'three levels' },
      { filter: '+/+/+/+/+', of: 'five levels' },
      { filter: '+', of: 'one level' },
      { filter: '$SYS/#', of: 'broker' },
      { filter: '$SYS/+/heartbeat', of: 'broker' },
      { filter: '$drop/#', of: 'gateway drop topic' },
      { filter: '$queue/#', of: 'queue prefix' },
      { filter: '$share/g/#', of: 'shared subscription' },
      { filter: `$share/g/dev/${pk}/${v.sn}/down/#`, of: 'shared subscription' },
      { filter: '$share/g/dev/#', of: 'shared subscription' },
    ];
    const own = (d: TestDevice) => `dev/${d.productKey}/${d.sn}`;
    // The attacker's own prefix, bent: its uplinks, or deeper than a downlink kind.
    const bent = (d: TestDevice): Template[] => [
      { filter: `${own(d)}/up/#`, of: 'own uplinks' },
      { filter: `${own(d)}/down/cmd/#`, of: 'own, deeper' },
      { filter: `${own(d)}/+/cmd`, of: 'own, any direction' },
      { filter: `${own(d)}/down/+/+`, of: 'own, deeper' },
      { filter: `${own(d)}/#`, of: 'own, all' },
    ];
    const templates = (d: TestDevice): Template[] => [
      ...concrete.map((c) => ({ filter: c.topic, of: c.of })),
      ...wildcards,
      ...bent(d),
    ];

    // 1. Both attackers (3.1.1 and 5.0) sign in and subscribe to every template, and to their own downlinks: the
    //    control that shows delivery works.
    const attackers: { d: TestDevice; conn: RawMqtt; refused: number; granted: string[] }[] = [];
    const sharedRefusals: string[] = [];
    for (const [d, version] of [
      [a4!, 4],
      [a5!, 5],
    ] as const) {
      const conn = await RawMqtt.open(target, version);
      conn.send(validConnect(d, version));
      await conn.until((ps) => ps.some((p) => connackCode(p) === 0), 'CONNACK');
      const list = templates(d).filter((tp) => version === 4 || !tp.filter.startsWith('$share/'));
      let id = 1;
      conn.send({
        cmd: 'subscribe',
        messageId: id++,
        subscriptions: [{ topic: `${own(d)}/down/#`, qos: 1 }],
      });
      for (const tp of list)
        conn.send({ cmd: 'subscribe', messageId: id++, subscriptions: [{ topic: tp.filter, qos: 1 }] });
      await conn.until((ps) => ps.filter((p) => p.cmd === 'suback').length === id - 1, 'every SUBACK');
      const subacks = conn.packets.filter((p): p is Extract<Packet, { cmd: 'suback' }> => p.cmd === 'suback');
      const grantedOf = (mid: number) => (subacks.find((s) => s.messageId === mid)!.granted as number[])[0]!;
      expect(grantedOf(1), 'own downlinks').toBeLessThan(0x80);
      const granted = list.filter((_, i) => grantedOf(i + 2) < 0x80).map((tp) => tp.filter);
      attackers.push({ d, conn, refused: list.length - granted.length, granted });
      if (version === 5) {
        // A 5.0 device that uses a shared subscription (CONNACK: not available) is disconnected with 0x9E.
        for (const tp of templates(d).filter((x) => x.filter.startsWith('$share/'))) {
          const s = await RawMqtt.open(target, 5);
          s.send(validConnect(d, 5));
          await s.until((ps) => ps.some((p) => connackCode(p) === 0), 'CONNACK');
          s.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: tp.filter, qos: 1 }] });
          await s.closed;
          const disconnect = s.packets.find((p) => p.cmd === 'disconnect');
          sharedRefusals.push(
            s.count('suback') > 0
              ? `${tp.filter}: SUBACK`
              : `${tp.filter}: DISCONNECT ${disconnect?.reasonCode}`,
          );
        }
        // Those connections took the client id over: the 5.0 attacker signs in again and subscribes once more.
        const again = await RawMqtt.open(target, 5);
        again.send(validConnect(d, 5));
        await again.until((ps) => ps.some((p) => connackCode(p) === 0), 'CONNACK');
        let mid = 1;
        again.send({
          cmd: 'subscribe',
          messageId: mid++,
          subscriptions: [{ topic: `${own(d)}/down/#`, qos: 1 }],
        });
        for (const tp of list)
          again.send({ cmd: 'subscribe', messageId: mid++, subscriptions: [{ topic: tp.filter, qos: 1 }] });
        await again.until((ps) => ps.filter((p) => p.cmd === 'suback').length === mid - 1, 'every SUBACK');
        attackers[1] = { ...attackers[1]!, conn: again };
      }
    }

    // 2. What the victim and the stranger have stored, before the attackers publish on their topics.
    const ids = await rowsOf<{ id: number; sn: string }>(
      sql`select id, sn from devices where sn in (${v.sn}, ${w.sn})`,
    );
    const tables = await rowsOf<{ table_name: string }>(sql`
      select table_name from information_schema.columns
      where column_name = 'device_id' and table_schema = 'public' order by table_name`);
    const idList = ids.map((r) => r.id);
    const snapshot = async () => {
      const counts: Record<string, number> = {};
      for (const { table_name } of tables) {
        const r = await rowsOf<{ n: number }>(
          sql`select count(*)::int as n from ${sql.identifier(table_name)} where device_id in (${sql.join(idList, sql`, `)})`,
        );
        counts[table_name] = r[0]!.n;
      }
      const devs = await rowsOf<Record<string, unknown>>(
        sql`select * from devices where id in (${sql.join(idList, sql`, `)}) order by id`,
      );
      return { counts, devs: JSON.stringify(devs) };
    };
    const before = await snapshot();

    // 3. Both attackers publish on every concrete foreign topic (QoS 1: the PUBACK comes once the gateway handled
    //    it) and leave wills on the victim's topics.
    let published = 0;
    for (const { d, conn } of attackers) {
      const topics = [...concrete, { topic: `${own(d)}/down/cmd`, kind: 'cmd', of: 'own downlink' }];
      const first = conn.count('puback');
      topics.forEach((c, i) => conn.send(conn.publishPacket(c.topic, aclPayload(c.kind, v.sn, i), 100 + i)));
      await conn.until(
        (ps) => ps.filter((p) => p.cmd === 'puback').length === first + topics.length,
        'every PUBACK',
      );
      published += topics.length;
    }
    const gw = t.app.gateway as unknown as { stats: { rejected: number } };
    const rejectedBefore = gw.stats.rejected;
    let wills = 0;
    for (const { d } of attackers) {
      for (const kind of ['property', 'status', 'event'] as const) {
        const c = await RawMqtt.open(target, 4);
        c.send(
          validConnect(d, 4, {
            clientId: d.sn,
            will: { topic: upTopic(pk, v.sn, kind), payload: aclPayload(kind, v.sn, 900 + wills), qos: 1 },
          }),
        );
        await c.until((ps) => ps.some((p) => connackCode(p) === 0), 'CONNACK');
        c.destroy();
        wills++;
      }
    }
    // Each will is published when its connection is lost, and refused: wait for the gateway to have counted them.
    await eventually(async () => (gw.stats.rejected - rejectedBefore >= wills ? true : undefined), 10_000);
    const afterPublish = await snapshot();
    const markerRowsAcl = await rowsOf<{ n: number }>(sql`
      select count(*)::int as n from device_properties where key like 'acl\\_%'`);
    const rowsFromAttackers =
      Object.keys(before.counts).reduce(
        (n, k) => n + Math.abs(afterPublish.counts[k]! - before.counts[k]!),
        0,
      ) +
      (afterPublish.devs === before.devs ? 0 : 1) +
      markerRowsAcl[0]!.n;

    // The wills took the attackers' client ids over: both sign in again and subscribe to every template.
    for (const [i, version] of [4, 5].entries()) {
      const at = attackers[i]!;
      const conn = await RawMqtt.open(target, version as 4 | 5);
      conn.send(validConnect(at.d, version as 4 | 5));
      await conn.until((ps) => ps.some((p) => connackCode(p) === 0), 'CONNACK');
      const list = templates(at.d).filter((tp) => version === 4 || !tp.filter.startsWith('$share/'));
      let mid = 1;
      conn.send({
        cmd: 'subscribe',
        messageId: mid++,
        subscriptions: [{ topic: `${own(at.d)}/down/#`, qos: 1 }],
      });
      for (const tp of list)
        conn.send({ cmd: 'subscribe', messageId: mid++, subscriptions: [{ topic: tp.filter, qos: 1 }] });
      await conn.until((ps) => ps.filter((p) => p.cmd === 'suback').length === mid - 1, 'every SUBACK');
      at.conn = conn;
    }

    // 4. The victim, the stranger and the server make traffic on those topics.
    const url = `mqtt://127.0.0.1:${t.app.broker.port}`;
    const vc = await connectDevice(url, v);
    const wc = await connectDevice(url, w);
    try {
      await vc.subscribeAsync(`${own(v)}/down/#`, { qos: 1 });
      await wc.subscribeAsync(`${own(w)}/down/#`, { qos: 1 });
      for (const [c, d] of [
        [vc, v],
        [wc, w],
      ] as const) {
        await c.publishAsync(
          upTopic(d.productKey, d.sn, 'property'),
          JSON.stringify({ params: { t: 21.5 } }),
          { qos: 1 },
        );
        await c.publishAsync(upTopic(d.productKey, d.sn, 'event'), JSON.stringify({ event: 'alarm' }), {
          qos: 1,
        });
        await c.publishAsync(upTopic(d.productKey, d.sn, 'status'), JSON.stringify({ online: 1 }), {
          qos: 1,
        });
        await c.publishAsync(upTopic(d.productKey, d.sn, 'raw'), Buffer.from([1, 2, 3]), { qos: 1 });
        await c.publishAsync(upTopic(d.productKey, d.sn, 'info'), JSON.stringify({ fw_version: '1.0.0' }), {
          qos: 1,
        });
      }
      for (const [d, token, c] of [
        [v, owner.token, vc],
        [w, stranger.token, wc],
      ] as const) {
        const got = nextMessage(c, downTopic(d.productKey, d.sn, 'cmd'));
        const res = await t.inject({
          method: 'POST',
          url: `/api/devices/${d.sn}/commands`,
          token,
          payload: { type: 'hex', data: '01030000000AC5CD' },
        });
        expect(res.statusCode, res.body).toBe(200);
        await got;
      }
      // The server's broker publishes on every concrete topic of the list too (all of the victim's downlinks).
      const aedes = t.app.broker.aedes!;
      for (const c of concrete) {
        await new Promise<void>((resolve, reject) =>
          aedes.publish(
            {
              cmd: 'publish',
              topic: c.topic,
              payload: Buffer.from('{"server":1}'),
              qos: 1,
              retain: false,
              dup: false,
            },
            (err) => (err ? reject(err) : resolve()),
          ),
        );
      }
      // The sentinel: a message on each attacker's own downlink, sent last, arrives after anything sent before it.
      for (const { d, conn } of attackers) {
        await new Promise<void>((resolve, reject) =>
          aedes.publish(
            {
              cmd: 'publish',
              topic: `${own(d)}/down/cmd`,
              payload: Buffer.from('{"sentinel":1}'),
              qos: 1,
              retain: false,
              dup: false,
            },
            (err) => (err ? reject(err) : resolve()),
          ),
        );
        await conn.until(
          (ps) => ps.some((p) => p.cmd === 'publish' && p.payload.toString() === '{"sentinel":1}'),
          'the sentinel',
        );
      }
    } finally {
      await vc.endAsync(true);
      await wc.endAsync(true);
    }

    const deliveries = attackers.flatMap(({ d, conn }) =>
      conn.packets
        .filter((p): p is IPublishPacket => p.cmd === 'publish')
        .filter((p) => !p.topic.startsWith(`${own(d)}/down/`))
        .map((p) => `${d.sn} <- ${p.topic}`),
    );
    for (const { conn } of attackers) conn.destroy();
    const granted = attackers.flatMap((x) => x.granted.map((f) => `${x.d.sn}: ${f}`));
    const filters = new Set(attackers.flatMap((x) => templates(x.d).map((tp) => tp.filter)));

    figure({
      name: 'mqtt.acl_templates',
      value: templates(a4!).length,
      unit: 'templates',
      target: '>= 20',
      detail:
        `${concrete.length} foreign topics (every up and down kind of a device of the same product, another owner's ` +
        `product, $SYS, $drop), ${wildcards.length} wildcard and shared filters, ${bent(a4!).length} bent own ` +
        `prefixes; subscribed by a 3.1.1 and a 5.0 device (${filters.size} filters), published on by both (${published} messages, ${wills} wills)`,
    });
    figure({
      name: 'mqtt.acl_deliveries',
      value: deliveries.length,
      unit: 'messages',
      target: '0',
      detail: deliveries.length
        ? deliveries.slice(0, 20).join('; ')
        : `granted subscriptions ${granted.length}; the victim and the stranger published 5 kinds each, got a command through the API, the broker published on ${concrete.length} topics; each attacker's own downlink (the control) was delivered`,
    });
    figure({
      name: 'mqtt.acl_rows',
      value: rowsFromAttackers,
      unit: 'rows',
      target: '0',
      detail: `rows of ${tables.length} device tables and the device rows of the victim and the stranger, before and after the attackers' publishes and wills`,
    });

    expect(templates(a4!).length).toBeGreaterThanOrEqual(20);
    expect(granted).toEqual([]);
    // 0x9E: shared subscriptions not supported.
    expect(sharedRefusals).toEqual(
      templates(a5!)
        .filter((x) => x.filter.startsWith('$share/'))
        .map((x) => `${x.filter}: DISCONNECT 158`),
    );
    expect(deliveries).toEqual([]);
    expect(afterPublish.counts).toEqual(before.counts);
    expect(afterPublish.devs).toBe(before.devs);
    expect(rowsFromAttackers).toBe(0);
  });
});
