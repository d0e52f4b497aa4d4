import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import zhCN from '../locale/zh-CN';
import AccessKeyListPage from './access-key-list-page';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import { KEY, ME } from './key-fixtures.test-kit';

afterEach(() => vi.unstubAllGlobals());

const open = () => renderPage(AccessKeyListPage, '/accesskey/list', '/accesskey/list');

const unverified = {
  ...KEY,
  access_key: 'AKZZZZZZZZZZZZZZZZZZZZ',
  name: 'Fresh key',
  scopes: ['ota'],
  verified: false,
  last_used_at: null,
  last_used_ip: null,
  expires_at: '2020-01-01T00:00:00.000Z',
};

const row = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

describe('access key list', () => {
  it('shows each key: copyable key, scopes, verification, expiry, last use', async () => {
    const calls = mockApi({ 'GET /api/access-keys': { data: [KEY, unverified], total: 2 } });
    open();
    await screen.findByText('Nightly sync');
    const first = row('Nightly sync');
    expect(within(first).getByText(KEY.access_key)).toBeTruthy();
    expect(within(first).getByText(zhCN['accessKey.scope.devices:read'])).toBeTruthy();
    expect(within(first).getByText(zhCN['accessKey.scope.devices:control'])).toBeTruthy();
    expect(within(first).getByText(zhCN['accessKey.verified'])).toBeTruthy();
    expect(within(first).getByText(zhCN['accessKey.never'])).toBeTruthy();
    expect(within(first).getByText('203.0.113.7')).toBeTruthy();
    expect(within(first).queryByRole('button', { name: zhCN['accessKey.verify'] })).toBeNull();
    const second = row('Fresh key');
    expect(within(second).getByText(zhCN['accessKey.unverified'])).toBeTruthy();
    expect(within(second).getByText(zhCN['accessKey.expired'])).toBeTruthy();
    expect(within(second).getByText(zhCN['accessKey.neverUsed'])).toBeTruthy();
    expect(within(second).getByRole('button', { name: zhCN['accessKey.verify'] })).toBeTruthy();
    expect(screen.getByText('共 2 个')).toBeTruthy();
    expect(calls[0]!.query.get('current')).toBe('1');
  });

  it('explains what a key is for when there is none, with create and the docs', async () => {
    mockApi({ 'GET /api/access-keys': { data: [], total: 0 } });
    open();
    expect(await screen.findByText(zhCN['accessKey.empty'])).toBeTruthy();
    expect(screen.getByText(zhCN['accessKey.empty.hint'])).toBeTruthy();
    expect(screen.getAllByRole('button', { name: zhCN['accessKey.create'] }).length).toBe(2);
    const docs = screen.getAllByText(zhCN['accessKey.docs']).map((el) => el.closest('a'));
    expect(docs.some((a) => a?.getAttribute('href') === '/api/docs')).toBe(true);
  });

  it('asks before disabling and then sends enabled: false', async () => {
    const calls = mockApi({
      'GET /api/access-keys': { data: [KEY], total: 1 },
      'PUT /api/access-keys/AKABCDEFGHIJKLMNOPQRST': (body) => ({ data: { ...KEY, ...(body as object) } }),
    });
    open();
    await screen.findByText('Nightly sync');
    fireEvent.click(within(row('Nightly sync')).getByRole('switch'));
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    await screen.findByText(zhCN['accessKey.disable.confirm']);
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ enabled: false }));
  });

  it('rotates after a confirm and shows the new secret once, closed only once saved', async () => {
    mockApi({
      'GET /api/access-keys': { data: [KEY], total: 1 },
      'POST /api/access-keys/AKABCDEFGHIJKLMNOPQRST/rotate': {
        data: { access_key: KEY.access_key, secret: 'new-secret-value-0123456789' },
      },
    });
    open();
    await screen.findByText('Nightly sync');
    fireEvent.click(
      within(row('Nightly sync')).getByRole('button', { name: zhCN['accessKey.rotate.short'] }),
    );
    await screen.findByText(zhCN['accessKey.rotate.confirm']);
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    expect(await screen.findByText('new-secret-value-0123456789')).toBeTruthy();
    expect(screen.getByText(zhCN['accessKey.secret.warning'])).toBeTruthy();
    const close = screen.getByRole('button', { name: zhCN['accessKey.secret.close'] });
    expect((close as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByText(zhCN['accessKey.secret.saved']));
    expect((close as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(close);
    await waitFor(() => expect(screen.queryByText('new-secret-value-0123456789')).toBeNull());
  });

  it('deletes after a confirm', async () => {
    const calls = mockApi({
      'GET /api/access-keys': { data: [KEY], total: 1 },
      'DELETE /api/access-keys/AKABCDEFGHIJKLMNOPQRST': { data: null },
    });
    open();
    await screen.findByText('Nightly sync');
    fireEvent.click(within(row('Nightly sync')).getByRole('button', { name: '删除' }));
    await screen.findByText(zhCN['accessKey.delete.confirm']);
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
  });

  it('verifies an unverified key from its row with the code sent to the account phone', async () => {
    const calls = mockApi({
      'GET /api/access-keys': { data: [unverified], total: 1 },
      'GET /api/user/info': { data: ME },
      'POST /api/access-keys/AKZZZZZZZZZZZZZZZZZZZZ/verify-code': {
        data: { channel: 'sms', to: '138****1111', expires_in: 300 },
      },
      'POST /api/access-keys/AKZZZZZZZZZZZZZZZZZZZZ/verify': { data: { ...unverified, verified: true } },
    });
    open();
    await screen.findByText('Fresh key');
    fireEvent.click(within(row('Fresh key')).getByRole('button', { name: zhCN['accessKey.verify'] }));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByText('短信（13800001111）');
    fireEvent.click(within(dialog).getByRole('button', { name: '获取验证码' }));
    await waitFor(() =>
      expect(calls.find((c) => c.path.endsWith('/verify-code'))?.body).toEqual({ channel: 'sms' }),
    );
    fireEvent.change(within(dialog).getByPlaceholderText(zhCN['accessKey.verify.code.placeholder']), {
      target: { value: '123456' },
    });
    fireEvent.click(within(dialog).getByTestId('access-key-verify-submit'));
    await waitFor(() =>
      expect(calls.find((c) => c.path.endsWith('/verify'))?.body).toEqual({ code: '123456' }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
  it('shows an admin each key’s owner, and offers verify and rotate only on the admin’s own keys', async () => {
    mockApi({
      'GET /api/user/info': { data: { ...ME, uid: 1, username: 'admin', role: 'admin' } },
      'GET /api/access-keys': {
        data: [
          { ...unverified, owner: { uid: 7, username: 'alice' } },
          {
            ...unverified,
            access_key: 'AKYYYYYYYYYYYYYYYYYYYY',
            name: 'Admin key',
            owner: { uid: 1, username: 'admin' },
          },
        ],
        total: 2,
      },
    });
    open();
    await screen.findByText('Fresh key');
    expect(within(row('Fresh key')).getByText('所属用户：alice')).toBeTruthy();
    await screen.findByText('所属用户：admin');
    await waitFor(() =>
      expect(within(row('Admin key')).queryByRole('button', { name: zhCN['accessKey.verify'] })).toBeTruthy(),
    );
    expect(within(row('Fresh key')).queryByRole('button', { name: zhCN['accessKey.verify'] })).toBeNull();
    expect(
      within(row('Admin key')).getByRole('button', { name: zhCN['accessKey.rotate.short'] }),
    ).toBeTruthy();
    expect(
      within(row('Fresh key')).queryByRole('button', { name: zhCN['accessKey.rotate.short'] }),
    ).toBeNull();
    expect(within(row('Fresh key')).getByRole('button', { name: '删除' })).toBeTruthy();
  });
});
