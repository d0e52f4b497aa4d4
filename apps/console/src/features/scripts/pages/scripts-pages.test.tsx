import type { ScriptDetail, ScriptItem, ScriptVersionItem } from '@cellhub/contract/scripts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import ScriptDetailPage from './script-detail-page';
import ScriptEditPage from './script-edit-page';
import ScriptListPage from './script-list-page';

// jsdom lays nothing out; CodeMirror measures text ranges, which jsdom's Range lacks.
const emptyRects = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
const zeroRect = () => ({
  x: 0,
  y: 0,
  width: 0,
  height: 0,
  top: 0,
  left: 0,
  right: 0,
  bottom: 0,
  toJSON: () => ({}),
});
Range.prototype.getClientRects ??= emptyRects;
Range.prototype.getBoundingClientRect ??= zeroRect;

beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
afterEach(() => vi.unstubAllGlobals());

const ME = { uid: 7, username: 'alice', phone: '', email: '', role: 'user' };
const stamp = '2026-11-20T08:00:00.000Z';
const SOURCE = 'function decode(bytes) {\n  return { properties: { t: bytes[0] } };\n}\n';

const ITEM: ScriptItem = {
  id: 4,
  name: 'Frame decoder',
  description: 'temperature frames',
  product_key: 'pksensor',
  product_name: 'Raw sensor',
  shared: false,
  owner: 'alice',
  enabled: false,
  disabled_reason: 'failures',
  keep_raw: false,
  version: 3,
  has_decode: true,
  has_encode: false,
  bound_products: ['pksensor'],
  calls: 120,
  errors: 21,
  consecutive_errors: 20,
  avg_ms: 0.042,
  last_error: { at: stamp, message: 'RangeError: bad frame', line: 2, sn: 'SN-1' },
  createdat: stamp,
  updatedat: stamp,
};
const SHARED: ScriptItem = {
  ...ITEM,
  id: 5,
  name: 'Common decoder',
  product_key: null,
  product_name: null,
  shared: true,
  enabled: true,
  disabled_reason: '',
  errors: 0,
  last_error: null,
  bound_products: [],
};
const DETAIL: ScriptDetail = { ...ITEM, source: SOURCE, recent_errors: [ITEM.last_error!] };
const VERSIONS: ScriptVersionItem[] = [3, 2, 1].map((v) => ({
  version: v,
  source: SOURCE,
  note: v === 2 ? 'scale' : '',
  author: 'alice',
  createdat: stamp,
}));

describe('script list', () => {
  it('shows state, counters and the last error with its line, and searches by state', async () => {
    const calls = mockApi({
      'GET /api/scripts': { data: [ITEM, SHARED], total: 2 },
      'GET /api/user/info': { data: ME },
      'GET /api/products': { data: [], total: 0 },
    });
    renderPage(ScriptListPage, '/script/list', '/script/list');
    expect(await screen.findByText('Frame decoder')).toBeTruthy();
    const row = screen.getByText('Frame decoder').closest('tr')!;
    expect(within(row).getByText('21')).toBeTruthy();
    expect(within(row).getByText('line 2')).toBeTruthy();
    expect(within(row).getByText('RangeError: bad frame')).toBeTruthy();
    expect(within(row).getByText('Disabled')).toBeTruthy();
    const shared = screen.getByText('Common decoder').closest('tr')!;
    expect(within(shared).getByText('Shared')).toBeTruthy();
    expect(within(shared).getByText('Enabled')).toBeTruthy();
    expect(screen.getByText('2 in total')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText('Script name'), { target: { value: 'frame' } });
    fireEvent.click(screen.getByRole('button', { name: /search/i }));
    await waitFor(() =>
      expect(calls.some((c) => c.path === '/api/scripts' && c.query.get('keyword') === 'frame')).toBe(true),
    );
  });

  it('says so when there are no scripts', async () => {
    mockApi({
      'GET /api/scripts': { data: [], total: 0 },
      'GET /api/user/info': { data: ME },
      'GET /api/products': { data: [], total: 0 },
    });
    renderPage(ScriptListPage, '/script/list', '/script/list');
    expect(await screen.findByText('No scripts yet')).toBeTruthy();
  });
});

describe('script editor', () => {
  it('test-runs the source: output and log lines, or the error with its line marked in the editor', async () => {
    let answer: unknown = {
      ok: true,
      output: { properties: { temperature: 25 }, events: [] },
      logs: ['uplink 00fa'],
      error: null,
      ms: 0.4,
    };
    const calls = mockApi({
      'GET /api/scripts/4': { data: DETAIL },
      'GET /api/user/info': { data: ME },
      'GET /api/products': { data: [], total: 0 },
      'POST /api/scripts/test-run': () => ({ data: answer }),
    });
    renderPage(ScriptEditPage, '/script/edit/:id', '/script/edit/4');
    expect(await screen.findByText('Edit script')).toBeTruthy();
    // CodeMirror arrives lazily with the stored source.
    await waitFor(() => expect(screen.getByTestId('script-editor').textContent).toContain('properties'));
    fireEvent.change(screen.getByTestId('script-test-input'), { target: { value: '00 FA' } });
    fireEvent.click(screen.getByTestId('script-test-run'));
    expect((await screen.findByTestId('script-test-output')).textContent).toContain('"temperature": 25');
    expect(screen.getByTestId('script-test-logs').textContent).toBe('uplink 00fa');
    const run = calls.find((c) => c.path === '/api/scripts/test-run');
    expect(run?.body).toMatchObject({
      function: 'decode',
      input_type: 'hex',
      input: '00 FA',
      source: SOURCE,
    });

    answer = {
      ok: false,
      output: null,
      logs: ['before'],
      error: { code: 82001, kind: 'runtime', message: 'TypeError: x is undefined', line: 2 },
      ms: 0.3,
    };
    fireEvent.click(screen.getByTestId('script-test-run'));
    expect((await screen.findByTestId('script-test-error')).textContent).toContain(
      'Line 2: TypeError: x is undefined',
    );
    expect(screen.getByTestId('script-editor').getAttribute('data-error-line')).toBe('2');
    await waitFor(() =>
      expect(document.querySelector('.cm-script-error-line')?.textContent).toContain('return'),
    );
  });

  it('saves a new version and shows a compile error on its line', async () => {
    const calls = mockApi({
      'GET /api/scripts/4': { data: DETAIL },
      'GET /api/user/info': { data: ME },
      'GET /api/products': { data: [], total: 0 },
      'PUT /api/scripts/4': {
        refuse: 82005,
        details: [{ field: 'source', message: 'line 2: SyntaxError: unexpected token' }],
      },
    });
    renderPage(ScriptEditPage, '/script/edit/:id', '/script/edit/4');
    await waitFor(() => expect(screen.getByTestId('script-editor').textContent).toContain('properties'));
    // Keeping raw frames is switched on with the edit.
    const keep = screen.getByTestId('script-keep-raw');
    expect(keep.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(keep);
    fireEvent.click(screen.getByTestId('script-save'));
    expect(await screen.findByText('line 2: SyntaxError: unexpected token')).toBeTruthy();
    expect(screen.getByTestId('script-editor').getAttribute('data-error-line')).toBe('2');
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({
      name: 'Frame decoder',
      source: SOURCE,
      keep_raw: true,
    });
  });
});

describe('script detail', () => {
  it('shows counters, the latest errors and versions, and rolls back with one confirmation', async () => {
    const calls = mockApi({
      'GET /api/scripts/4': { data: DETAIL },
      'GET /api/scripts/4/versions': { data: VERSIONS, total: 3 },
      'GET /api/user/info': { data: ME },
      'GET /api/products': { data: [], total: 0 },
      'POST /api/scripts/4/versions/2/restore': { data: { ...DETAIL, version: 4 } },
    });
    renderPage(ScriptDetailPage, '/script/detail/:id', '/script/detail/4');
    expect(await screen.findByText('Disabled after repeated failures')).toBeTruthy();
    const info = screen.getByTestId('script-info');
    expect(within(info).getByText('120')).toBeTruthy();
    expect(within(info).getByText('0.042 ms')).toBeTruthy();
    expect(within(info).getByText('Only when not decoded')).toBeTruthy();
    const errors = screen.getByTestId('script-errors');
    expect(within(errors).getByText('RangeError: bad frame')).toBeTruthy();
    expect(within(errors).getByText('SN-1')).toBeTruthy();
    const versions = screen.getByTestId('script-versions');
    expect(await within(versions).findByText('scale')).toBeTruthy();
    expect(within(versions).getByText('Current')).toBeTruthy();
    const v2 = within(versions).getByText('v2').closest('tr')!;
    fireEvent.click(within(v2).getByText('Roll back'));
    expect(await screen.findByText('Save the source of v2 as a new version?')).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: /^(ok|confirm|确定|确认)$/i }));
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'POST' && c.path.endsWith('/versions/2/restore'))).toBe(true),
    );
    // Enabling a script disabled after failures.
    mockApi({
      'GET /api/scripts/4': { data: DETAIL },
      'GET /api/scripts/4/versions': { data: VERSIONS, total: 3 },
      'GET /api/user/info': { data: ME },
      'PUT /api/scripts/4/state': (body) => ({
        data: { ...DETAIL, enabled: (body as { enabled: boolean }).enabled },
      }),
    });
    fireEvent.click(screen.getByTestId('script-toggle'));
    expect(await screen.findByText('Enabled')).toBeTruthy();
  });

  it('tells a missing script', async () => {
    mockApi({ 'GET /api/user/info': { data: ME }, 'GET /api/scripts/9': { refuse: 10107, http: 400 } });
    renderPage(ScriptDetailPage, '/script/detail/:id', '/script/detail/9');
    expect(await screen.findByText('Script not found')).toBeTruthy();
  });
});
