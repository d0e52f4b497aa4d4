import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const message = vi.hoisted(() => ({ error: vi.fn(), warning: vi.fn(), success: vi.fn(), info: vi.fn() }));
vi.mock('@arco-design/web-react', () => ({ Message: message }));

import { ApiError, http, resetRequestState } from './request';
import { setToken } from './auth';
import { setLocale } from './locale-store';
import { loadToasts } from './toast';

/** Just enough of XMLHttpRequest to play one upload: progress events, then an answer or a network failure. */
class FakeXhr {
  static last: FakeXhr | undefined;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown;
  status = 0;
  responseText = '';
  aborted = false;
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } =
    {
      onprogress: null,
    };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  private responseType = 'application/json';

  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  getResponseHeader(name: string) {
    return name.toLowerCase() === 'content-type' ? this.responseType : null;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true });
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
  fail() {
    this.onerror?.();
  }
}

beforeAll(async () => {
  await loadToasts();
});
beforeEach(() => {
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  vi.stubGlobal(
    'fetch',
    vi.fn(() => Promise.reject(new Error('fetch must not be used for uploads'))),
  );
  Object.values(message).forEach((m) => m.mockReset());
  resetRequestState();
  setLocale('en-US');
  setToken('tok-upload', 1);
});
afterEach(() => {
  vi.unstubAllGlobals();
  FakeXhr.last = undefined;
});

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('uploads with progress', () => {
  it('sends the form with the token through XMLHttpRequest, reports progress and resolves to data', async () => {
    const form = new FormData();
    form.append('version', '1.0.0');
    const seen: [number, number | undefined][] = [];
    const done = http.post<{ id: number }>('/api/firmware/1/versions', form, {
      onUploadProgress: (loaded, total) => seen.push([loaded, total]),
    });
    await tick();
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/firmware/1/versions');
    expect(xhr.headers.Authorization).toBe('Bearer tok-upload');
    // The browser sets the multipart boundary itself.
    expect(xhr.headers['Content-Type']).toBeUndefined();
    expect(xhr.body).toBe(form);
    xhr.progress(100, 400);
    xhr.progress(400, 400);
    xhr.answer(200, { status: true, data: { id: 7 } });
    await expect(done).resolves.toEqual({ id: 7 });
    expect(seen).toEqual([
      [100, 400],
      [400, 400],
    ]);
  });

  it('turns a refusal into an ApiError with the code table text, toasted unless silent', async () => {
    const done = http.post('/api/firmware/1/versions', new FormData(), { onUploadProgress: () => undefined });
    await tick();
    FakeXhr.last!.answer(413, { code: 50001, message: 'too big' });
    const err = await done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 50001, httpStatus: 413, message: 'Upload exceeds size limit' });
    expect(message.error).toHaveBeenCalledWith({ content: 'Upload exceeds size limit', duration: 5000 });

    message.error.mockReset();
    const quiet = http.post('/api/firmware/1/versions', new FormData(), {
      onUploadProgress: () => undefined,
      silent: true,
    });
    await tick();
    FakeXhr.last!.answer(415, {
      code: 50002,
      message: 'File type error',
      details: [{ field: 'file', message: 'x' }],
    });
    await expect(quiet).rejects.toMatchObject({ code: 50002, details: [{ field: 'file', message: 'x' }] });
    expect(message.error).not.toHaveBeenCalled();
  });

  it('a network failure is httpStatus 0; aborting rejects with AbortError', async () => {
    const broken = http.post('/api/x', new FormData(), { onUploadProgress: () => undefined, silent: true });
    await tick();
    FakeXhr.last!.fail();
    await expect(broken).rejects.toMatchObject({ httpStatus: 0, code: 0 });

    const controller = new AbortController();
    const aborted = http.post('/api/x', new FormData(), {
      onUploadProgress: () => undefined,
      signal: controller.signal,
    });
    await tick();
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(FakeXhr.last!.aborted).toBe(true);
  });
});
