import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const message = vi.hoisted(() => ({ error: vi.fn(), warning: vi.fn(), success: vi.fn(), info: vi.fn() }));
vi.mock('@arco-design/web-react', () => ({ Message: message }));

import { ApiError, buildUrl, http, resetRequestState, setAuthExpiredHandler } from './request';
import { getToken, setToken } from './auth';
import { setLocale } from './locale-store';
import { loadToasts } from './toast';

function reply(status: number, body: unknown): Response {
  return new Response(body === undefined ? '' : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

const fetchMock = vi.fn<typeof fetch>();

// Toasts load on first use in the app; here they are loaded up front so each toast shows before the call fails.
beforeAll(async () => {
  await loadToasts();
});
const onExpired = vi.fn();

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset();
  Object.values(message).forEach((m) => m.mockReset());
  onExpired.mockReset();
  setAuthExpiredHandler(onExpired);
  resetRequestState();
  setLocale('en-US');
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('success', () => {
  it('resolves to data and sends the bearer token', async () => {
    setToken('tok-1', 7);
    fetchMock.mockResolvedValueOnce(reply(200, { status: true, data: { a: 1 } }));
    await expect(http.get('/api/x')).resolves.toEqual({ a: 1 });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/x');
    expect((init!.headers as Record<string, string>).Authorization).toBe('Bearer tok-1');
  });

  it('sends no Authorization header when signed out', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { status: true, data: null }));
    await http.post('/api/auth/login', { username: 'a' });
    const init = fetchMock.mock.calls[0]![1]!;
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
    expect(init.body).toBe(JSON.stringify({ username: 'a' }));
    expect(init.method).toBe('POST');
  });

  it('lists with current/per_page and answers data and total', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { status: true, data: [{ id: 1 }], total: 41 }));
    await expect(http.list('/api/devices', { current: 2, per_page: 20, keyword: '' })).resolves.toEqual({
      data: [{ id: 1 }],
      total: 41,
      extra: {},
    });
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/devices?current=2&per_page=20');
  });

  it('passes on total_exact: false (the total is a lower bound)', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { status: true, data: [], total: 10000, total_exact: false }));
    await expect(http.list('/api/devices')).resolves.toEqual({
      data: [],
      total: 10000,
      totalExact: false,
      extra: {},
    });
  });

  it("hands on the envelope's other fields (the device list's property names)", async () => {
    const property_defs = { pk: [{ key: 't', name: '温度', name_us: 'Temp', unit: '°C' }] };
    fetchMock.mockResolvedValueOnce(reply(200, { status: true, data: [], total: 0, property_defs }));
    const page = await http.list<unknown, { property_defs: typeof property_defs }>('/api/devices');
    expect(page.extra).toEqual({ property_defs });
  });

  it('put and delete use their methods', async () => {
    fetchMock.mockImplementation(async () => reply(200, { status: true, data: null }));
    await http.put('/api/a', { b: 1 });
    await http.delete('/api/a');
    expect(fetchMock.mock.calls.map((c) => c[1]!.method)).toEqual(['PUT', 'DELETE']);
  });
});

describe('a JSON body without status', () => {
  it('toasts the code table text of the active locale for 5 s', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { code: 20402, message: 'server text' }));
    const err = await failure(http.get('/api/x'));
    expect(err).toMatchObject({ code: 20402, httpStatus: 200, message: 'Device serial number exists' });
    expect(message.error).toHaveBeenCalledWith({ content: 'Device serial number exists', duration: 5000 });
  });

  it('uses the Chinese text in zh-CN', async () => {
    setLocale('zh-CN');
    fetchMock.mockResolvedValueOnce(reply(200, { code: 20402, message: 'server text' }));
    await failure(http.get('/api/x'));
    expect(message.error).toHaveBeenCalledWith({ content: '设备序列号已存在', duration: 5000 });
  });

  it('falls back to the server message for unknown codes', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { code: 99999, message: 'Something odd' }));
    await failure(http.get('/api/x'));
    expect(message.error).toHaveBeenCalledWith({ content: 'Something odd', duration: 5000 });
  });

  it("falls back to 'Error' when there is neither code text nor message", async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { foo: 1 }));
    const err = await failure(http.get('/api/x'));
    expect(err.message).toBe('Error');
    expect(message.error).toHaveBeenCalledWith({ content: 'Error', duration: 5000 });
  });

  it('treats status false as a failure too', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, { status: false, code: 100, message: 'x' }));
    await failure(http.get('/api/x'));
    expect(message.error).toHaveBeenCalledOnce();
  });

  it.each([20124, 20123, 20126])('never toasts code %i', async (code) => {
    fetchMock.mockResolvedValueOnce(reply(200, { code, message: 'quiet' }));
    const err = await failure(http.get('/api/x'));
    expect(err.code).toBe(code);
    expect(message.error).not.toHaveBeenCalled();
  });

  it('keeps quiet with silent: true and still throws the details', async () => {
    fetchMock.mockResolvedValueOnce(
      reply(400, { code: 10113, message: 'Form error', details: { a: 'bad' } }),
    );
    const err = await failure(http.post('/api/x', {}, { silent: true }));
    expect(err).toMatchObject({ code: 10113, httpStatus: 400, details: { a: 'bad' } });
    expect(message.error).not.toHaveBeenCalled();
  });
});

describe('HTTP errors', () => {
  it('403: warns "login expired", clears the token and goes to login', async () => {
    setToken('tok', 1);
    fetchMock.mockResolvedValueOnce(reply(403, { code: 10102, message: 'expired' }));
    const err = await failure(http.get('/api/user/info'));
    expect(err.httpStatus).toBe(403);
    expect(message.warning).toHaveBeenCalledWith({
      content: 'Login expired, please sign in again',
      duration: 5000,
    });
    expect(getToken()).toBeNull();
    expect(onExpired).toHaveBeenCalledOnce();
  });

  it('403: warns at most once per 2 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    fetchMock.mockImplementation(async () => reply(403, { code: 10102, message: 'expired' }));
    await failure(http.get('/api/a'));
    await failure(http.get('/api/b'));
    vi.setSystemTime(new Date('2026-01-01T00:00:01.900Z'));
    await failure(http.get('/api/c'));
    expect(message.warning).toHaveBeenCalledTimes(1);
    expect(onExpired).toHaveBeenCalledTimes(1);
    vi.setSystemTime(new Date('2026-01-01T00:00:02.100Z'));
    await failure(http.get('/api/d'));
    expect(message.warning).toHaveBeenCalledTimes(2);
    expect(onExpired).toHaveBeenCalledTimes(2);
  });

  it('404: "request address does not exist"', async () => {
    fetchMock.mockResolvedValueOnce(reply(404, { code: 10106, message: 'Not Found' }));
    const err = await failure(http.get('/api/nope'));
    expect(err.httpStatus).toBe(404);
    expect(message.error).toHaveBeenCalledWith({ content: 'Request address does not exist', duration: 5000 });
  });

  it('other statuses: the code text or message', async () => {
    fetchMock.mockResolvedValueOnce(reply(429, { code: 10104, message: 'Too many' }));
    await failure(http.get('/api/x'));
    expect(message.error).toHaveBeenCalledWith({
      content: 'Too many requests, please try again later',
      duration: 5000,
    });
  });

  it("other statuses without a usable body: 'Request Error'", async () => {
    fetchMock.mockResolvedValueOnce(new Response('<html>bad gateway</html>', { status: 502 }));
    const err = await failure(http.get('/api/x'));
    expect(err).toMatchObject({ httpStatus: 502, code: 0, message: 'Request Error' });
    expect(message.error).toHaveBeenCalledWith({ content: 'Request Error', duration: 5000 });
  });

  it('silent codes stay silent on HTTP errors too', async () => {
    fetchMock.mockResolvedValueOnce(reply(400, { code: 20124, message: 'Not scanned' }));
    await failure(http.get('/api/auth/wechat/qr/t'));
    expect(message.error).not.toHaveBeenCalled();
  });

  it('a network failure throws with httpStatus 0', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const err = await failure(http.get('/api/x'));
    expect(err).toMatchObject({ httpStatus: 0, code: 0 });
    expect(err.answered).toBe(false);
    expect(message.error).toHaveBeenCalledOnce();
  });

  it('a refusal counts as answered, a server crash does not', () => {
    expect(new ApiError(20101, 'x', 400).answered).toBe(true);
    expect(new ApiError(10101, 'x', 500).answered).toBe(false);
    expect(new ApiError(0, 'x', 503).answered).toBe(false);
  });
});

describe('buildUrl', () => {
  it('skips empty parameters and keeps existing queries', () => {
    expect(buildUrl('/api/a?x=1', { y: 2, z: undefined, w: null })).toBe('/api/a?x=1&y=2');
    expect(buildUrl('/api/a', {})).toBe('/api/a');
  });

  it('takes the base URL from VITE_API_BASE_URL', async () => {
    vi.stubEnv('VITE_API_BASE_URL', 'https://api.example.com/');
    expect(buildUrl('/api/a')).toBe('https://api.example.com/api/a');
    vi.unstubAllEnvs();
    expect(buildUrl('/api/a')).toBe('/api/a');
  });
});
