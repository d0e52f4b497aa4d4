import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerItem, OrderDetail, PackageItem, SimCardDetail } from '@cellhub/contract/sim';
import { buildTestApp, type TestApp } from '../../test/app';
import { auditLogs } from '../audit/audit.table';
import { devices } from '../devices/devices.table';
import { createDevices } from '../../test/gateway-test-kit';
import { balances } from './balance.table';
import { simUsageMonthly, simCards } from './sim-cards.table';
import {
  api,
  balanceOf,
  createCard,
  createPackage,
  expectCode,
  manualProvider,
  newIccid,
  topup,
} from '../../test/sim-test-support';

const DB = process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let provider: number;

beforeAll(async () => {
  t = await buildTestApp({ config: { simSyncTickMs: 0 } });
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  provider = await manualProvider(t, admin);
});
afterAll(() => t.close());

const order = (token: string, body: unknown, headers?: Record<string, string>) =>
  t.inject({ method: 'POST', url: '/api/orders', token, payload: body as object, headers });
const pay = (token: string, id: number, headers?: Record<string, string>) =>
  t.inject({ method: 'POST', url: `/api/orders/${id}/pay`, token, headers });
const card = (token: string, iccid: string) => api<SimCardDetail>(t, token, 'GET', `/api/cards/${iccid}`);

describe(`packages (${DB})`, () => {
  it('users see packages on sale only; admins see all with usage counts', async () => {
    const onSale = await createPackage(t, admin, { price_fen: 990 });
    const offSale = await createPackage(t, admin, { on_sale: false });
    const userList = await api<PackageItem[]>(t, a.token, 'GET', '/api/packages?per_page=100');
    expect(userList.map((p) => p.id)).toContain(onSale);
    expect(userList.map((p) => p.id)).not.toContain(offSale);
    expectCode(await t.inject({ method: 'GET', url: `/api/packages/${offSale}`, token: a.token }), 10107);
    const adminList = await api<PackageItem[]>(t, admin, 'GET', '/api/packages?per_page=100&on_sale=0');
    expect(adminList.map((p) => p.id)).toEqual([offSale]);
    const item = await api<PackageItem>(t, a.token, 'GET', `/api/packages/${onSale}`);
    expect(item.price_fen).toBe(990);
  });

  it('refuses a second package with the same code (60007)', async () => {
    const id = await createPackage(t, admin);
    const { code } = await api<PackageItem>(t, admin, 'GET', `/api/packages/${id}`);
    const res = await t.inject({
      method: 'POST',
      url: '/api/packages',
      token: admin,
      payload: {
        name: 'x',
        code,
        operator: 'china_mobile',
        type: 'monthly',
        validity_unit: 'month',
        validity_count: 1,
        flow_mb: 1,
        price_fen: 1,
      },
    });
    expectCode(res, 60007);
  });

  it('60001: a package in use keeps price, flow and validity, and cannot be deleted', async () => {
    const id = await createPackage(t, admin, { price_fen: 1500, flow_mb: 500 });
    // Unused: everything may change, and it may be deleted.
    await api(t, admin, 'PUT', `/api/packages/${id}`, { price_fen: 1600, flow_mb: 600 });
    await createCard(t, admin, { provider_id: provider, package_id: id });
    for (const change of [
      { price_fen: 1700 },
      { flow_mb: 700 },
      { validity_count: 3 },
      { validity_unit: 'year' },
    ]) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/packages/${id}`,
        token: admin,
        payload: change,
      });
      const details = expectCode(res, 60001) as { fields: string[]; card_count: number };
      expect(details.fields).toEqual(Object.keys(change));
      expect(details.card_count).toBe(1);
    }
    expectCode(await t.inject({ method: 'DELETE', url: `/api/packages/${id}`, token: admin }), 60001);
    // Same values, name, remark and on_sale are not locked.
    const ok = await api<PackageItem>(t, admin, 'PUT', `/api/packages/${id}`, {
      price_fen: 1600,
      name: 'renamed',
      remark: 'kept for old cards',
      on_sale: false,
    });
    expect(ok).toMatchObject({
      name: 'renamed',
      price_fen: 1600,
      flow_mb: 600,
      on_sale: false,
      card_count: 1,
    });
  });

  it('60001 also when only an order bought it', async () => {
    const id = await createPackage(t, admin, { price_fen: 100 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    await api(t, a.token, 'POST', '/api/orders', { package_id: id, iccids: [iccid] });
    // The card is not on the package (the order is pending), the order alone locks it.
    expectCode(
      await t.inject({ method: 'PUT', url: `/api/packages/${id}`, token: admin, payload: { price_fen: 1 } }),
      60001,
    );
  });
});

describe(`balance and orders (${DB})`, () => {
  it('admin top-ups land in the ledger with the running balance; users cannot top up', async () => {
    const u = await t.createUser();
    await topup(t, admin, u.uid, 10_000, 'first');
    await topup(t, admin, u.uid, 2_550, 'second');
    expect(await balanceOf(t, u.token)).toBe(12_550);
    const ledger = await api<LedgerItem[]>(t, u.token, 'GET', '/api/balance/ledger');
    expect(ledger.map((l) => [l.kind, l.amount_fen, l.balance_after_fen, l.note])).toEqual([
      ['topup', 2_550, 12_550, 'second'],
      ['topup', 10_000, 10_000, 'first'],
    ]);
    const refused = await t.inject({
      method: 'POST',
      url: '/api/balance/topups',
      token: u.token,
      payload: { uid: u.uid, amount_fen: 100 },
    });
    expectCode(refused, 10108);
    for (const amount_fen of [0, -5, 1.5]) {
      const bad = await t.inject({
        method: 'POST',
        url: '/api/balance/topups',
        token: admin,
        payload: { uid: u.uid, amount_fen },
      });
      expectCode(bad, 10113);
    }
  });

  it('never goes below zero: an order the balance does not cover is refused with 60002 and changes nothing', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 3000 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 2999);
    const created = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', {
      package_id: pkg,
      iccids: [iccid],
    });
    expect(created).toMatchObject({ status: 'pending', amount_fen: 3000, kind: 'new', card_count: 1 });
    const details = expectCode(await pay(u.token, created.id), 60002);
    expect(details).toEqual({ balance_fen: 2999, amount_fen: 3000 });
    expect(await balanceOf(t, u.token)).toBe(2999);
    expect((await api<OrderDetail>(t, u.token, 'GET', `/api/orders/${created.id}`)).status).toBe('pending');
    expect((await card(u.token, iccid)).expiry).toBeNull();
    const ledger = await api<LedgerItem[]>(t, u.token, 'GET', '/api/balance/ledger');
    expect(ledger.map((l) => l.kind)).toEqual(['topup']);
    // The database refuses a negative balance even if a bug tried to write one.
    await expect(
      t.app.deps.db.update(balances).set({ balanceFen: -1 }).where(eq(balances.uid, u.uid)),
    ).rejects.toThrow();
  });

  it('two orders racing for one balance: exactly one is paid, the other gets 60002', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 6000 });
    const c1 = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    const c2 = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 10_000);
    const o1 = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [c1] });
    const o2 = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [c2] });
    const results = await Promise.all([pay(u.token, o1.id), pay(u.token, o2.id)]);
    const codes = results.map((r) => (r.statusCode === 200 ? 0 : (r.json() as { code: number }).code)).sort();
    expect(codes).toEqual([0, 60002]);
    expect(await balanceOf(t, u.token)).toBe(4000);
    const ledger = await api<LedgerItem[]>(t, u.token, 'GET', '/api/balance/ledger');
    expect(ledger.map((l) => [l.kind, l.amount_fen, l.balance_after_fen])).toEqual([
      ['order', -6000, 4000],
      ['topup', 10_000, 10_000],
    ]);
  });

  it('many payments racing: the balance ends exactly at what the paid orders left', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 700 });
    await topup(t, admin, u.uid, 5000);
    const orders: number[] = [];
    for (let i = 0; i < 10; i++) {
      const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
      orders.push(
        (await api<OrderDetail>(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid] })).id,
      );
    }
    const results = await Promise.all(orders.map((id) => pay(u.token, id)));
    const paid = results.filter((r) => r.statusCode === 200).length;
    expect(paid).toBe(7);
    expect(
      results.filter((r) => r.statusCode !== 200).every((r) => (r.json() as { code: number }).code === 60002),
    ).toBe(true);
    expect(await balanceOf(t, u.token)).toBe(5000 - 7 * 700);
  });

  it('payment is idempotent: paying twice (one after the other, or at once) charges once', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 1200 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 10_000);
    const o = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid] });
    const [p1, p2] = await Promise.all([
      pay(u.token, o.id, { 'idempotency-key': 'pay-1' }),
      pay(u.token, o.id, { 'idempotency-key': 'pay-1' }),
    ]);
    expect([p1.statusCode, p2.statusCode]).toEqual([200, 200]);
    const again = await pay(u.token, o.id);
    expect(again.statusCode).toBe(200);
    expect((again.json() as { data: OrderDetail }).data.status).toBe('paid');
    expect(await balanceOf(t, u.token)).toBe(8800);
    const expiry = (await card(u.token, iccid)).expiry;
    const ledger = await api<LedgerItem[]>(t, u.token, 'GET', '/api/balance/ledger?kind=order');
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ order_id: o.id, order_no: o.order_no, amount_fen: -1200 });
    // The card was extended once.
    expect((await card(u.token, iccid)).expiry).toBe(expiry);
  });

  it('Idempotency-Key on create answers the same order (and refuses the key for another request)', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 500 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    const other = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 1000);
    const body = { package_id: pkg, iccids: [iccid], pay: true };
    const [r1, r2] = await Promise.all([
      order(u.token, body, { 'idempotency-key': 'buy-42' }),
      order(u.token, body, { 'idempotency-key': 'buy-42' }),
    ]);
    expect([r1.statusCode, r2.statusCode]).toEqual([200, 200]);
    const id1 = (r1.json() as { data: OrderDetail }).data.id;
    expect((r2.json() as { data: OrderDetail }).data.id).toBe(id1);
    expect(await balanceOf(t, u.token)).toBe(500);
    const r3 = await order(u.token, body, { 'idempotency-key': 'buy-42' });
    expect((r3.json() as { data: OrderDetail }).data).toMatchObject({ id: id1, status: 'paid' });
    const mismatch = await order(u.token, { ...body, iccids: [other] }, { 'idempotency-key': 'buy-42' });
    expect(expectCode(mismatch, 10113)).toEqual([
      { field: 'Idempotency-Key', message: 'reused with a different request' },
    ]);
    expectCode(await order(u.token, body, { 'idempotency-key': 'has space' }), 10113);
    // The same key of another user is another order.
    const v = await t.createUser();
    const vCard = await createCard(t, admin, { provider_id: provider, uid: v.uid });
    const vOrder = await api<OrderDetail>(
      t,
      v.token,
      'POST',
      '/api/orders',
      { package_id: pkg, iccids: [vCard] },
      { 'idempotency-key': 'buy-42' },
    );
    expect(vOrder.id).not.toBe(id1);
  });

  it('paying extends validity and traffic: new starts now, renew adds to the expiry, change restarts', async () => {
    const u = await t.createUser();
    const monthly = await createPackage(t, admin, {
      price_fen: 100,
      flow_mb: 100,
      validity_unit: 'day',
      validity_count: 30,
    });
    const pool = await createPackage(t, admin, {
      price_fen: 100,
      flow_mb: 1000,
      type: 'pool',
      validity_unit: 'month',
      validity_count: 1,
    });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 1000);
    const first = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', {
      package_id: monthly,
      iccids: [iccid],
      pay: true,
    });
    expect(first.cards[0]).toMatchObject({ kind: 'new', expiry_before: null });
    const paidAt = Date.parse(first.paid_at!);
    let c = await card(u.token, iccid);
    expect(c.expiry).toBe(new Date(paidAt + 30 * DAY).toISOString());
    expect(first.cards[0]?.expiry_after).toBe(c.expiry);
    expect(c).toMatchObject({
      month_total: 100,
      remaining_traffic: 100,
      package_type: 'monthly',
      package_id: monthly,
    });

    const renew = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', {
      package_id: monthly,
      iccids: [iccid],
      pay: true,
    });
    expect(renew.kind).toBe('renew');
    expect(renew.cards[0]?.expiry_before).toBe(c.expiry);
    c = await card(u.token, iccid);
    expect(c.expiry).toBe(new Date(paidAt + 60 * DAY).toISOString());
    expect(c.month_total).toBe(100);

    t.clock.advance(DAY);
    const change = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', {
      package_id: pool,
      iccids: [iccid],
      pay: true,
    });
    expect(change.kind).toBe('change');
    c = await card(u.token, iccid);
    // One calendar month from the payment (UTC), the day clamped to the end of a shorter month.
    const at = new Date(change.paid_at!);
    const lastDay = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 2, 0)).getUTCDate();
    const expected = new Date(at);
    expected.setUTCDate(1);
    expected.setUTCMonth(at.getUTCMonth() + 1);
    expected.setUTCDate(Math.min(at.getUTCDate(), lastDay));
    expect(c.expiry).toBe(expected.toISOString());
    expect(c).toMatchObject({ month_total: 1000, package_type: 'pool' });
    // Renewing a pool adds its flow to what is left.
    await api(t, u.token, 'POST', '/api/orders', { package_id: pool, iccids: [iccid], pay: true });
    expect((await card(u.token, iccid)).month_total).toBe(2000);
    expect(await balanceOf(t, u.token)).toBe(600);
    t.clock.advance(-DAY);
  });

  it('refund credits the balance, takes back an untouched extension and keeps a used one', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 2000, flow_mb: 100 });
    const fresh = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    const used = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 10_000);
    const o = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', {
      package_id: pkg,
      iccids: [fresh, used],
      pay: true,
    });
    expect(o.amount_fen).toBe(4000);
    expect(await balanceOf(t, u.token)).toBe(6000);
    // Traffic used on one card after payment.
    const [row] = await t.app.deps.db
      .select({ id: simCards.id })
      .from(simCards)
      .where(eq(simCards.iccid, used));
    const month = t.clock.now().toISOString().slice(0, 7);
    await t.app.deps.db
      .insert(simUsageMonthly)
      .values({ cardId: row!.id, month, usedBytes: 5 * 1024 * 1024, source: 'import' });

    expectCode(
      await t.inject({ method: 'POST', url: `/api/orders/${o.id}/refund`, token: u.token, payload: {} }),
      10108,
    );
    const refunded = await api<OrderDetail>(t, admin, 'POST', `/api/orders/${o.id}/refund`, {
      note: 'customer asked',
    });
    expect(refunded).toMatchObject({ status: 'refunded', note: 'customer asked' });
    expect(refunded.cards.find((c) => c.iccid === fresh)?.reverted).toBe(true);
    expect(refunded.cards.find((c) => c.iccid === used)?.reverted).toBe(false);
    expect(await balanceOf(t, u.token)).toBe(10_000);
    expect((await card(u.token, fresh)).expiry).toBeNull();
    expect((await card(u.token, fresh)).package_id).toBeNull();
    expect((await card(u.token, used)).expiry).not.toBeNull();
    const ledger = await api<LedgerItem[]>(t, u.token, 'GET', '/api/balance/ledger');
    expect(ledger.map((l) => [l.kind, l.amount_fen, l.balance_after_fen])).toEqual([
      ['refund', 4000, 10_000],
      ['order', -4000, 6000],
      ['topup', 10_000, 10_000],
    ]);
    expectCode(
      await t.inject({ method: 'POST', url: `/api/orders/${o.id}/refund`, token: admin, payload: {} }),
      60004,
    );
    expectCode(await pay(u.token, o.id), 60004);
    const audits = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.target, `order:${o.id}`), eq(auditLogs.action, 'order_refund')));
    expect(audits).toHaveLength(1);
    expect(audits[0]?.detail).toMatchObject({ reverted: [fresh], kept: [used], amount_fen: 4000 });
  });

  it('refund of a renewal takes it back while the extension has not started', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 100, validity_unit: 'day', validity_count: 10 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 1000);
    await api(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid], pay: true });
    const before = (await card(u.token, iccid)).expiry;
    const renew = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', {
      package_id: pkg,
      iccids: [iccid],
      pay: true,
    });
    expect((await card(u.token, iccid)).expiry).not.toBe(before);
    const r = await api<OrderDetail>(t, admin, 'POST', `/api/orders/${renew.id}/refund`, {});
    expect(r.cards[0]?.reverted).toBe(true);
    expect((await card(u.token, iccid)).expiry).toBe(before);
    expect(await balanceOf(t, u.token)).toBe(900);
  });

  it('admins complete a pending order paid outside Cellhub: cards extended, balance untouched', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 99_900 });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    const o = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid] });
    expectCode(
      await t.inject({ method: 'POST', url: `/api/orders/${o.id}/complete`, token: u.token, payload: {} }),
      10108,
    );
    const done = await api<OrderDetail>(t, admin, 'POST', `/api/orders/${o.id}/complete`, {
      note: 'bank transfer 123',
    });
    expect(done).toMatchObject({ status: 'paid', payment_method: 'manual', note: 'bank transfer 123' });
    expect(await balanceOf(t, u.token)).toBe(0);
    expect((await card(u.token, iccid)).expiry).not.toBeNull();
    expectCode(
      await t.inject({ method: 'POST', url: `/api/orders/${o.id}/complete`, token: admin, payload: {} }),
      60004,
    );
    // Refunding it credits nothing (the money never went through the balance).
    await api(t, admin, 'POST', `/api/orders/${o.id}/refund`, {});
    expect(await balanceOf(t, u.token)).toBe(0);
  });

  it('a pending order can be cancelled, then not paid', async () => {
    const u = await t.createUser();
    const pkg = await createPackage(t, admin);
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await topup(t, admin, u.uid, 100_000);
    const o = await api<OrderDetail>(t, u.token, 'POST', '/api/orders', { package_id: pkg, iccids: [iccid] });
    expect((await api<OrderDetail>(t, u.token, 'POST', `/api/orders/${o.id}/cancel`)).status).toBe(
      'cancelled',
    );
    expectCode(await pay(u.token, o.id), 60004);
    expect(await balanceOf(t, u.token)).toBe(100_000);
  });

  it('refuses packages of another operator, off sale, and unknown ones', async () => {
    const u = await t.createUser();
    const unicom = await createPackage(t, admin, { operator: 'china_unicom' });
    const offSale = await createPackage(t, admin, { on_sale: false });
    const iccid = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    expect(expectCode(await order(u.token, { package_id: unicom, iccids: [iccid] }), 60005)).toMatchObject({
      iccids: [iccid],
    });
    expectCode(await order(u.token, { package_id: offSale, iccids: [iccid] }), 60005);
    expectCode(await order(u.token, { package_id: 999_999, iccids: [iccid] }), 10113);
    expectCode(await order(u.token, { package_id: unicom, iccids: [iccid, iccid] }), 10113);
    expectCode(await order(u.token, { package_id: unicom, iccids: [] }), 10113);
  });
});

describe(`ownership (${DB})`, () => {
  it("user B sees none of A's cards, orders or ledger, and cannot buy for A's card", async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    const pkg = await createPackage(t, admin, { price_fen: 100 });
    const assigned = await createCard(t, admin, { provider_id: provider, uid: a.uid });
    // A second card of A's: reported by A's device (devices.iccid), not assigned.
    const inDevice = await createCard(t, admin, { provider_id: provider });
    const [dev] = await createDevices(t, a.token, [`SIMOWN${Date.now() % 100000}`]);
    await t.app.deps.db.update(devices).set({ iccid: inDevice }).where(eq(devices.sn, dev!.sn));
    await topup(t, admin, a.uid, 1000);
    await topup(t, admin, b.uid, 1000);
    const aOrder = await api<OrderDetail>(t, a.token, 'POST', '/api/orders', {
      package_id: pkg,
      iccids: [assigned, inDevice],
      pay: true,
    });

    const aCards = await api<{ iccid: string; device_sn: string | null }[]>(
      t,
      a.token,
      'GET',
      '/api/cards?per_page=100',
    );
    expect(aCards.map((c) => c.iccid).sort()).toEqual([assigned, inDevice].sort());
    expect(aCards.find((c) => c.iccid === inDevice)?.device_sn).toBe(dev!.sn);

    const bCards = await t.inject({ method: 'GET', url: '/api/cards?per_page=100', token: b.token });
    expect(bCards.json()).toMatchObject({ status: true, data: [], total: 0 });
    for (const iccid of [assigned, inDevice]) {
      expectCode(await t.inject({ method: 'GET', url: `/api/cards/${iccid}`, token: b.token }), 60003);
      expectCode(await t.inject({ method: 'GET', url: `/api/cards/${iccid}/usage`, token: b.token }), 60003);
      expectCode(await t.inject({ method: 'GET', url: `/api/cards/${iccid}/orders`, token: b.token }), 60003);
    }
    const csv = await t.inject({ method: 'GET', url: '/api/cards/export', token: b.token });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.trim().split('\n')).toHaveLength(1);
    expect(csv.body).not.toContain(assigned);

    expect((await t.inject({ method: 'GET', url: '/api/orders', token: b.token })).json()).toMatchObject({
      data: [],
      total: 0,
    });
    expectCode(await t.inject({ method: 'GET', url: `/api/orders/${aOrder.id}`, token: b.token }), 10107);
    expectCode(await pay(b.token, aOrder.id), 10107);
    expectCode(
      await t.inject({ method: 'POST', url: `/api/orders/${aOrder.id}/cancel`, token: b.token }),
      10107,
    );
    const bLedger = await api<LedgerItem[]>(t, b.token, 'GET', '/api/balance/ledger');
    expect(bLedger.every((l) => l.uid === b.uid)).toBe(true);
    expectCode(await t.inject({ method: 'GET', url: `/api/balance?uid=${a.uid}`, token: b.token }), 10107);
    expectCode(
      await t.inject({ method: 'GET', url: `/api/balance/ledger?uid=${a.uid}`, token: b.token }),
      10107,
    );

    const steal = await order(b.token, { package_id: pkg, iccids: [assigned] });
    expect(expectCode(steal, 60003)).toEqual({ iccids: [assigned] });
    expect(await balanceOf(t, b.token)).toBe(1000);

    // Admins see all of it.
    const adminView = await api<OrderDetail>(t, admin, 'GET', `/api/orders/${aOrder.id}`);
    expect(adminView.uid).toBe(a.uid);
    expect(
      (await api<{ balance_fen: number }>(t, admin, 'GET', `/api/balance?uid=${a.uid}`)).balance_fen,
    ).toBe(800);
  });

  it('a card moves with the device: the new owner sees it, the old one no longer', async () => {
    const iccid = await createCard(t, admin, { provider_id: provider });
    const [dev] = await createDevices(t, admin, [`SIMMOVE${Date.now() % 100000}`]);
    await t.app.deps.db.update(devices).set({ iccid, uid: a.uid }).where(eq(devices.sn, dev!.sn));
    await card(a.token, iccid);
    await t.app.deps.db.update(devices).set({ uid: b.uid }).where(eq(devices.sn, dev!.sn));
    await card(b.token, iccid);
    expectCode(await t.inject({ method: 'GET', url: `/api/cards/${iccid}`, token: a.token }), 60003);
  });
});

describe(`audit (${DB})`, () => {
  it('writes an audit row with every money change', async () => {
    const u = await t.createUser();
    await topup(t, admin, u.uid, 123);
    const rows = await t.app.deps.db.execute(
      sql`select action, detail from audit_logs where action = 'balance_topup' and target = ${`user:${u.uid}`}`,
    );
    const list = (rows as unknown as { rows: { detail: { amount_fen: number } }[] }).rows;
    expect(list).toHaveLength(1);
    expect(list[0]?.detail.amount_fen).toBe(123);
    void newIccid;
  });
});
