import { packageCreateBody, SIM_IMPORT_COLUMNS, simProviderBody } from '@cellhub/contract/sim';
import { describe, expect, it } from 'vitest';
import { packageBody } from './components/package-form';
import { providerBody } from './components/provider-form';
import { fillPeriods } from './components/usage-chart';
import { templateRows } from './import-template';

describe('provider form body', () => {
  const common = { name: ' East ', operator: 'china_mobile' as const, sync_interval_min: 30, enabled: true };

  it('sends only the fields of the chosen kind, and an empty secret (keep the stored one)', () => {
    const body = providerBody({
      ...common,
      kind: 'onelink',
      remark: ' r ',
      config: { appid: ' C501 ', password: '', base_url: '', username: 'left over from 1NCE' },
    });
    expect(body).toEqual({
      name: 'East',
      operator: 'china_mobile',
      sync_interval_min: 30,
      enabled: true,
      remark: 'r',
      kind: 'onelink',
      config: { appid: 'C501', password: '', base_url: '' },
    });
    expect(simProviderBody.safeParse(body).success).toBe(true);
  });

  it('gives a manual provider no config, and 1NCE its user and password', () => {
    expect(providerBody({ ...common, kind: 'manual', config: { appid: 'x', password: 'y' } }).config).toEqual(
      {},
    );
    const nce = providerBody({ ...common, kind: '1nce', config: { username: 'api@x.io', password: 'pw' } });
    expect(nce.config).toEqual({ username: 'api@x.io', password: 'pw', base_url: '' });
    expect(simProviderBody.safeParse(nce).success).toBe(true);
  });
});

describe('package form body', () => {
  it('sends the price typed in yuan as whole fen, accepted by the contract', () => {
    const body = packageBody({
      name: ' 1 GB ',
      code: 'CM-1G',
      operator: 'china_mobile',
      type: 'monthly',
      validity_count: 1,
      validity_unit: 'month',
      flow_mb: 1024,
      price: 19.99,
      on_sale: true,
    });
    expect(body.price_fen).toBe(1999);
    expect(body.name).toBe('1 GB');
    expect(packageCreateBody.safeParse(body).success).toBe(true);
  });
});

describe('usage chart periods', () => {
  const now = new Date(Date.UTC(2025, 2, 14, 10));

  it('fills the last 30 days with zeros where the server has no figure', () => {
    const days = fillPeriods(
      {
        granularity: 'day',
        points: [
          { period: '2025-03-14', used: 5 },
          { period: '2025-02-13', used: 2 },
        ],
      },
      now,
    );
    expect(days).toHaveLength(30);
    expect(days[0]).toEqual({ period: '2025-02-13', used: 2 });
    expect(days.at(-1)).toEqual({ period: '2025-03-14', used: 5 });
    expect(days.filter((d) => d.used === 0)).toHaveLength(28);
  });

  it('fills 12 months and keeps figures older than the window', () => {
    const months = fillPeriods(
      {
        granularity: 'month',
        points: [
          { period: '2023-01', used: 9 },
          { period: '2025-03', used: 1 },
        ],
      },
      now,
    );
    expect(months).toHaveLength(13);
    expect(months[0]).toEqual({ period: '2023-01', used: 9 });
    expect(months[1]!.period).toBe('2024-04');
    expect(months.at(-1)).toEqual({ period: '2025-03', used: 1 });
  });
});

describe('batch templates', () => {
  it('carry the columns the server reads, with the example provider and package', () => {
    const rows = templateRows('cards', { provider: '移动手工', packageCode: 'CM-1G' });
    expect(rows[0]).toEqual([...SIM_IMPORT_COLUMNS]);
    expect(rows[1]![SIM_IMPORT_COLUMNS.indexOf('provider')]).toBe('移动手工');
    expect(rows[1]![SIM_IMPORT_COLUMNS.indexOf('package')]).toBe('CM-1G');
    expect(templateRows('usage', { provider: '', packageCode: '' })[0]).toEqual(['iccid', 'date', 'used_mb']);
  });
});
