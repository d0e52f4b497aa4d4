import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import zhCN from '../locale/zh-CN';
import AccessKeyDetailPage from './access-key-detail-page';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import { KEY, ME } from './key-fixtures.test-kit';

// ECharts draws on a canvas jsdom does not have; the chart's option is tested in usage-option.test.ts.
vi.mock('../../../components/chart/chart', () => ({
  Chart: () => <div data-testid="chart" />,
}));

afterEach(() => vi.unstubAllGlobals());

const BASE = `/api/access-keys/${KEY.access_key}`;
const open = (ak: string = KEY.access_key) =>
  renderPage(AccessKeyDetailPage, '/accesskey/detail/:accesskey', `/accesskey/detail/${ak}`);

const usage = Array.from({ length: 30 }, (_, i) => ({
  day: `2026-11-${String(i + 1).padStart(2, '0')}`,
  ok: i === 29 ? 4 : 0,
  refused: i === 29 ? 2 : 0,
}));
const uses = [
  {
    id: 2,
    at: '2026-11-30T08:00:00.000Z',
    method: 'GET',
    route: 'GET /api/devices',
    ip: '203.0.113.7',
    code: 0,
    status: 200,
  },
  {
    id: 1,
    at: '2026-11-30T07:00:00.000Z',
    method: 'GET',
    route: 'GET /api/devices',
    ip: '198.51.100.1',
    code: 10221,
    status: 403,
  },
];

function answers(key: object = KEY) {
  return {
    [`GET ${BASE}`]: { data: key },
    [`GET ${BASE}/usage`]: { data: usage },
    [`GET ${BASE}/uses`]: { data: uses, total: 12 },
    'GET /api/user/info': { data: ME },
  };
}

describe('access key detail', () => {
  it('describes the key (never a secret), its daily use and every request with its result', async () => {
    const calls = mockApi(answers());
    open();
    expect((await screen.findAllByText('Nightly sync')).length).toBeGreaterThan(0);
    const info = screen.getByTestId('access-key-descriptions');
    expect(within(info).getByText(KEY.access_key)).toBeTruthy();
    expect(within(info).getByText('10.0.0.0/8')).toBeTruthy();
    expect(within(info).getByText(zhCN['accessKey.never'])).toBeTruthy();
    expect(within(info).getByTestId('access-key-last-used').textContent).toContain('203.0.113.7');
    expect(within(info).queryByText(/secret/i)).toBeNull();
    // Verified: no verification card.
    expect(screen.queryByText(zhCN['accessKey.verify.title'])).toBeNull();

    expect(await screen.findByText('30 天内成功 4 次，被拒绝 2 次')).toBeTruthy();
    expect(screen.getByTestId('chart')).toBeTruthy();
    expect(calls.find((c) => c.path.endsWith('/usage'))?.query.get('days')).toBe('30');

    const table = screen.getByTestId('access-key-uses');
    expect(await within(table).findByText('198.51.100.1')).toBeTruthy();
    expect(within(table).getByText('签名不匹配')).toBeTruthy();
    expect(within(table).getByText(zhCN['accessKey.use.ok'])).toBeTruthy();
    expect(within(table).getAllByText('GET /api/devices')).toHaveLength(2);
    expect(within(table).getByText('共 12 条')).toBeTruthy();
  });

  it('offers the verification while the key is unverified', async () => {
    mockApi(answers({ ...KEY, verified: false }));
    open();
    expect(await screen.findByText(zhCN['accessKey.verify.title'])).toBeTruthy();
    expect(await screen.findByText('短信（13800001111）')).toBeTruthy();
  });

  it('edits name, scopes, allow-list and enabled in one PUT', async () => {
    const calls = mockApi({
      ...answers(),
      [`PUT ${BASE}`]: (body) => ({ data: { ...KEY, ...(body as object) } }),
    });
    open();
    await screen.findAllByText('Nightly sync');
    fireEvent.click(screen.getByRole('button', { name: /编辑/ }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByTestId('access-key-name'), { target: { value: 'Renamed' } });
    fireEvent.click(within(dialog).getByText(zhCN['accessKey.scope.devices:control']));
    fireEvent.click(within(dialog).getByRole('switch'));
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s*定/ }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
        name: 'Renamed',
        scopes: ['devices:read'],
        ip_allow: ['203.0.113.7', '10.0.0.0/8'],
        expires_at: null,
        enabled: false,
      }),
    );
  });

  it('answers a key that is not there (or another user’s) with the result page', async () => {
    mockApi({ [`GET ${BASE}`]: { refuse: 10107 } });
    open();
    const result = await screen.findByTestId('result-page');
    expect(result.getAttribute('data-problem')).toBe('notFound');
    expect(screen.getByText(zhCN['accessKey.detail.notFound'])).toBeTruthy();
  });

  it('answers a malformed key with the result page when the server refuses it', async () => {
    mockApi({ 'GET /api/access-keys/not-a-key': { refuse: 10113 } });
    open('not-a-key');
    expect((await screen.findByTestId('result-page')).getAttribute('data-problem')).toBe('notFound');
  });
  it('lets an admin see another user’s key but not rotate or verify it', async () => {
    mockApi({
      ...answers({ ...KEY, verified: false, owner: { uid: 7, username: 'alice' } }),
      'GET /api/user/info': { data: { ...ME, uid: 1, username: 'admin', role: 'admin' } },
    });
    open();
    // Said once the page knows who is looking.
    expect(
      await screen.findByText(zhCN['accessKey.detail.othersKey'].replace('{name}', 'alice')),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: /编辑/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: new RegExp(zhCN['accessKey.rotate']) })).toBeNull();
    expect(screen.queryByText(zhCN['accessKey.verify.title'])).toBeNull();
  });
});
