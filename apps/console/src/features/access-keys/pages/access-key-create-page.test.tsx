import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import zhCN from '../locale/zh-CN';
import AccessKeyCreatePage from './access-key-create-page';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import { KEY, ME } from './key-fixtures.test-kit';

afterEach(() => vi.unstubAllGlobals());

const open = () => renderPage(AccessKeyCreatePage, '/accesskey/create', '/accesskey/create');
const SECRET = 'shown-once-secret-abcdefghijklmnop';

function fillName(name: string) {
  fireEvent.change(screen.getByTestId('access-key-name'), { target: { value: name } });
}

function addAddress(value: string) {
  const input = screen.getByTestId('access-key-ip-allow').querySelector('input')!;
  fireEvent.change(input, { target: { value } });
  fireEvent.keyDown(input, { key: 'Enter', keyCode: 13 });
}

describe('access key create', () => {
  it('names a bad allow-list entry under its field and sends nothing', async () => {
    const calls = mockApi({ 'GET /api/user/info': { data: ME } });
    open();
    fillName('sync');
    addAddress('10.0.0.0/8');
    addAddress('300.1.1.1');
    fireEvent.click(screen.getByTestId('access-key-submit'));
    expect(
      await screen.findByText(zhCN['accessKey.form.ipAllow.bad'].replace('{list}', '300.1.1.1')),
    ).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('asks for a name, at least one scope and the expiry time', async () => {
    mockApi({ 'GET /api/user/info': { data: ME } });
    open();
    // devices:read is ticked by default; untick it.
    fireEvent.click(screen.getByText(zhCN['accessKey.scope.devices:read']));
    // "Expires at" without a time.
    fireEvent.click(screen.getByText(zhCN['accessKey.form.expiry.until']));
    fireEvent.click(screen.getByTestId('access-key-submit'));
    expect(await screen.findByText(zhCN['accessKey.form.name.required'])).toBeTruthy();
    expect(screen.getByText(zhCN['accessKey.form.scopes.required'])).toBeTruthy();
    expect(screen.getByText(zhCN['accessKey.form.expiry.required'])).toBeTruthy();
  });

  it('creates, shows the secret once behind "I have saved it", then verifies by SMS', async () => {
    const calls = mockApi({
      'GET /api/user/info': { data: ME },
      'POST /api/access-keys': (body) => ({
        data: { ...KEY, ...(body as object), verified: false, last_used_at: null, secret: SECRET },
      }),
      [`POST /api/access-keys/${KEY.access_key}/verify-code`]: {
        data: { channel: 'sms', to: '138****1111', expires_in: 300 },
      },
      [`POST /api/access-keys/${KEY.access_key}/verify`]: { data: { ...KEY, verified: true } },
    });
    open();
    fillName('  Nightly sync ');
    fireEvent.click(screen.getByText(zhCN['accessKey.scope.ota']));
    addAddress('2001:db8::/32');
    fireEvent.click(screen.getByTestId('access-key-submit'));

    await screen.findByText(SECRET);
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Nightly sync',
      scopes: ['devices:read', 'ota'],
      ip_allow: ['2001:db8::/32'],
      expires_at: null,
    });
    expect(screen.getByText(zhCN['accessKey.secret.warning'])).toBeTruthy();
    // Leaving the tab now would lose the secret: the browser is told to ask.
    const leaving = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(leaving);
    expect(leaving.defaultPrevented).toBe(true);
    const next = screen.getByRole('button', { name: zhCN['accessKey.secret.next'] }) as HTMLButtonElement;
    expect(next.disabled).toBe(true);
    fireEvent.click(screen.getByText(zhCN['accessKey.secret.saved']));
    expect(next.disabled).toBe(false);
    fireEvent.click(next);

    // The secret is gone from the page for good; the verification step has the account's phone.
    expect(await screen.findByText('短信（13800001111）')).toBeTruthy();
    expect(screen.queryByText(SECRET)).toBeNull();
    const later = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(later);
    expect(later.defaultPrevented).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: '获取验证码' }));
    await waitFor(() =>
      expect(calls.find((c) => c.path.endsWith('/verify-code'))?.body).toEqual({ channel: 'sms' }),
    );
    // The button counts down before another code may be asked for.
    expect(await screen.findByRole('button', { name: /秒后重发/ })).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText(zhCN['accessKey.verify.code.placeholder']), {
      target: { value: '654321' },
    });
    fireEvent.click(screen.getByTestId('access-key-verify-submit'));
    expect(await screen.findByText(zhCN['accessKey.verify.doneTitle'])).toBeTruthy();
    expect(calls.find((c) => c.path.endsWith('/verify'))?.body).toEqual({ code: '654321' });
  });

  it('says a wrong code under the code input', async () => {
    mockApi({
      'GET /api/user/info': { data: { ...ME, phone: '', email: 'a@example.com' } },
      'POST /api/access-keys': { data: { ...KEY, verified: false, secret: SECRET } },
      [`POST /api/access-keys/${KEY.access_key}/verify`]: { refuse: 20120, message: 'Email code error' },
    });
    open();
    fillName('sync');
    fireEvent.click(screen.getByTestId('access-key-submit'));
    await screen.findByText(SECRET);
    fireEvent.click(screen.getByText(zhCN['accessKey.secret.saved']));
    fireEvent.click(screen.getByRole('button', { name: zhCN['accessKey.secret.next'] }));
    expect(await screen.findByText('邮件（a@example.com）')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText(zhCN['accessKey.verify.code.placeholder']), {
      target: { value: '000000' },
    });
    fireEvent.click(screen.getByTestId('access-key-verify-submit'));
    // The code table's text of the active language.
    expect(await screen.findByText('邮箱验证码错误')).toBeTruthy();
  });

  it('tells a user without phone or email where to add one', async () => {
    mockApi({
      'GET /api/user/info': { data: { ...ME, phone: '', email: '' } },
      'POST /api/access-keys': { data: { ...KEY, verified: false, secret: SECRET } },
    });
    open();
    fillName('sync');
    fireEvent.click(screen.getByTestId('access-key-submit'));
    await screen.findByText(SECRET);
    fireEvent.click(screen.getByText(zhCN['accessKey.secret.saved']));
    fireEvent.click(screen.getByRole('button', { name: zhCN['accessKey.secret.next'] }));
    expect(await screen.findByText(zhCN['accessKey.verify.noChannel'])).toBeTruthy();
  });
  it('puts the server’s refusal under the field it names, in its own words', async () => {
    mockApi({
      'GET /api/user/info': { data: ME },
      'POST /api/access-keys': {
        refuse: 10113,
        details: [{ field: 'ip_allow.0', message: 'ip_rule' }],
      },
    });
    open();
    fillName('sync');
    addAddress('192.0.2.1');
    fireEvent.click(screen.getByTestId('access-key-submit'));
    expect(await screen.findByText(zhCN['accessKey.form.ipAllow.rule'])).toBeTruthy();
    expect(screen.queryByText('ip_rule')).toBeNull();
  });
});
