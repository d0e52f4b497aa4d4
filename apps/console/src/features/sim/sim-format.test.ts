import { describe, expect, it } from 'vitest';
import {
  addValidity,
  daysLeft,
  expiryState,
  fenFromYuan,
  formatMb,
  orderKindFor,
  orderKindOf,
  previewExpiry,
  usagePercent,
  yuan,
} from './sim-format';

describe('money', () => {
  it('shows fen as yuan with two decimals', () => {
    expect(yuan(0)).toBe('¥0.00');
    expect(yuan(5)).toBe('¥0.05');
    expect(yuan(123456)).toBe('¥1234.56');
    expect(yuan(-1500)).toBe('¥-15.00');
  });

  it('turns typed yuan into whole fen without float drift', () => {
    expect(fenFromYuan(19.99)).toBe(1999);
    expect(fenFromYuan(0.29)).toBe(29);
    expect(fenFromYuan(1.005)).toBe(100);
    expect(fenFromYuan(1000000)).toBe(100_000_000);
    expect(Number.isInteger(fenFromYuan(4.35))).toBe(true);
    expect(fenFromYuan(4.35)).toBe(435);
  });
});

describe('traffic', () => {
  it('picks MB, GB or TB', () => {
    expect(formatMb(null)).toBe('-');
    expect(formatMb(0)).toBe('0 MB');
    expect(formatMb(0.256)).toBe('0.26 MB');
    expect(formatMb(512)).toBe('512 MB');
    expect(formatMb(1024)).toBe('1 GB');
    expect(formatMb(1536)).toBe('1.5 GB');
    expect(formatMb(3 * 1024 * 1024)).toBe('3 TB');
  });

  it('answers the used share, capped at 100, or null without an allowance', () => {
    expect(usagePercent(256, 1024)).toBe(25);
    expect(usagePercent(2048, 1024)).toBe(100);
    expect(usagePercent(10, null)).toBeNull();
    expect(usagePercent(10, 0)).toBeNull();
  });
});

describe('expiry', () => {
  const now = Date.UTC(2025, 2, 14, 12);
  const inDays = (d: number) => new Date(now + d * 86_400_000).toISOString();

  it('says expired, soon (30 days) or ok', () => {
    expect(expiryState(null, now)).toBe('none');
    expect(expiryState(inDays(-1), now)).toBe('expired');
    expect(expiryState(inDays(0), now)).toBe('expired');
    expect(expiryState(inDays(3), now)).toBe('soon');
    expect(expiryState(inDays(30), now)).toBe('soon');
    expect(expiryState(inDays(31), now)).toBe('ok');
    expect(daysLeft(inDays(3.5), now)).toBe(3);
  });

  it('adds validity in UTC calendar arithmetic like the server', () => {
    const jan31 = new Date(Date.UTC(2025, 0, 31, 8));
    expect(addValidity(jan31, 'month', 1).toISOString()).toBe('2025-02-28T08:00:00.000Z');
    expect(addValidity(jan31, 'year', 1).toISOString()).toBe('2026-01-31T08:00:00.000Z');
    expect(addValidity(new Date(Date.UTC(2024, 1, 29)), 'year', 1).toISOString()).toBe(
      '2025-02-28T00:00:00.000Z',
    );
    expect(addValidity(jan31, 'day', 30).toISOString()).toBe('2025-03-02T08:00:00.000Z');
  });
});

describe('order preview', () => {
  const now = new Date(Date.UTC(2025, 2, 14));
  const pkg = { id: 7, validity_unit: 'month' as const, validity_count: 1 };

  it('knows new, renew and change per card and for the order', () => {
    expect(orderKindFor({ package_id: null }, pkg)).toBe('new');
    expect(orderKindFor({ package_id: 7 }, pkg)).toBe('renew');
    expect(orderKindFor({ package_id: 3 }, pkg)).toBe('change');
    expect(orderKindOf(['renew', 'renew'])).toBe('renew');
    expect(orderKindOf(['renew', 'change', 'new'])).toBe('change');
    expect(orderKindOf(['renew', 'new'])).toBe('new');
  });

  it('extends a valid renewal from its expiry and starts everything else now', () => {
    const later = '2025-04-10T00:00:00.000Z';
    expect(previewExpiry({ package_id: 7, expiry: later }, pkg, now)).toEqual({
      kind: 'renew',
      expiry: new Date('2025-05-10T00:00:00.000Z'),
    });
    // An expired card renews from now.
    expect(previewExpiry({ package_id: 7, expiry: '2025-01-01T00:00:00.000Z' }, pkg, now).expiry).toEqual(
      new Date('2025-04-14T00:00:00.000Z'),
    );
    // A change starts now even when the old package had time left.
    expect(previewExpiry({ package_id: 3, expiry: later }, pkg, now)).toEqual({
      kind: 'change',
      expiry: new Date('2025-04-14T00:00:00.000Z'),
    });
    expect(previewExpiry({ package_id: null, expiry: null }, pkg, now).kind).toBe('new');
  });
});
