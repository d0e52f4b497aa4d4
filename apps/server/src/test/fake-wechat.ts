import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowTestTarget } from './outbound';

/**
 * A local stand-in for WeChat's OAuth token endpoint. It checks appid, secret, code and grant_type strictly,
 * answers like the real one ({access_token, openid, ...} or {errcode, errmsg}) and accepts each code once.
 */
export class FakeWechat {
  readonly appid = 'wx_test_appid';
  readonly secret = 'wx_test_secret_0123456789';
  /** code -> openid */
  readonly codes = new Map<string, string>();
  readonly calls: URLSearchParams[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      res.setHeader('content-type', 'application/json');
      if (url.pathname !== '/sns/oauth2/access_token') {
        res.statusCode = 404;
        res.end('{}');
        return;
      }
      this.calls.push(url.searchParams);
      const q = url.searchParams;
      const answer = (body: object) => res.end(JSON.stringify(body));
      if (q.get('appid') !== this.appid) return answer({ errcode: 40013, errmsg: 'invalid appid' });
      if (q.get('secret') !== this.secret) return answer({ errcode: 40125, errmsg: 'invalid appsecret' });
      if (q.get('grant_type') !== 'authorization_code')
        return answer({ errcode: 40002, errmsg: 'invalid grant_type' });
      const code = q.get('code') ?? '';
      const openid = this.codes.get(code);
      if (!openid) return answer({ errcode: 40029, errmsg: 'invalid code' });
      this.codes.delete(code);
      return answer({
        access_token: 'at_' + code,
        expires_in: 7200,
        refresh_token: 'rt',
        openid,
        scope: 'snsapi_login',
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    allowTestTarget(this.url);
    return this;
  }

  /** A code the fake will exchange for `openid` (what the phone would carry back after the scan). */
  issueCode(openid: string): string {
    const code = `code_${Math.random().toString(36).slice(2)}`;
    this.codes.set(code, openid);
    return code;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
