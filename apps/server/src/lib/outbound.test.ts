import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkTarget,
  connectOutbound,
  isPublicAddress,
  openOutbound,
  OutboundError,
  outboundFetch,
  outboundRefusal,
  parseAllowList,
  type OutboundPolicy,
  type Resolver,
} from './outbound';

/** An HTTP server on 127.0.0.1 that counts the connections it accepts. */
async function listener(handler: (url: URL, req: IncomingMessage, res: ServerResponse) => void) {
  let connections = 0;
  const server: Server = createServer((req, res) => handler(new URL(req.url ?? '/', 'http://x'), req, res));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

type Listener = Awaited<ReturnType<typeof listener>>;
let victim: Listener;
let allowed: Listener;
let closed: number;
let resolved: string[];

/** Public-looking names answered without DNS. 93.184.216.34 stands for "somewhere public"; never connected to. */
const NAMES: Record<string, { address: string; family: number }[]> = {
  'internal.example': [{ address: '127.0.0.1', family: 4 }],
  'mixed.example': [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'metadata.example': [{ address: '169.254.169.254', family: 4 }],
  'nat64.example': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
  'ula.example': [{ address: 'fd00::1', family: 6 }],
  'cgnat.example': [{ address: '100.64.0.7', family: 4 }],
  'onprem.lan': [{ address: '127.0.0.1', family: 4 }],
};
const resolver: Resolver = async (hostname) => {
  resolved.push(hostname);
  // Answered from /etc/hosts: the one real lookup of the corpus.
  if (hostname === 'localhost') return lookup('localhost', { all: true });
  const answer = NAMES[hostname];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};

const policy = (extra: Partial<OutboundPolicy> = {}): OutboundPolicy => ({
  allow: [`127.0.0.1:${allowed.port}`],
  timeoutMs: 2000,
  maxBytes: 64 * 1024,
  resolve: resolver,
  ...extra,
});

beforeAll(async () => {
  victim = await listener((_url, _req, res) => res.end('internal secret'));
  allowed = await listener((url, req, res) => {
    const to = url.searchParams.get('to');
    if (url.pathname === '/redirect' && to) {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to }).end();
    } else if (url.pathname === '/loop') {
      res.writeHead(302, { location: '/loop' }).end();
    } else if (url.pathname === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json', 'x-seen': 'yes' }).end(
          JSON.stringify({
            method: req.method,
            body: Buffer.concat(chunks).toString(),
            type: req.headers['content-type'] ?? null,
            auth: req.headers.authorization ?? null,
          }),
        ),
      );
    } else if (url.pathname === '/big') {
      res.writeHead(200);
      res.end(Buffer.alloc(256 * 1024, 0x61));
    } else if (url.pathname === '/stall') {
      res.writeHead(200);
      res.write('start');
    } else if (url.pathname === '/silent') {
      // never answers
    } else {
      res.end('hello');
    }
  });
  closed = await closedPort();
});
afterAll(async () => {
  await victim.close();
  await allowed.close();
});
beforeEach(() => {
  resolved = [];
});

/** Polls until `check` holds (a positive condition, not a fixed wait). */
async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(
    () => new Error('reached'),
    (e: unknown) => e,
  );
  if (!(err instanceof OutboundError)) throw new Error(`expected an OutboundError, got ${String(err)}`);
  return err;
}

describe('hostile targets', () => {
  const P = () => victim.port;
  const r = (to: string, status = 302) =>
    `${allowed.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;
  // Each names the victim listener on 127.0.0.1 in another form; none may reach it.
  const corpus: [string, () => string][] = [
    ['dotted loopback', () => `http://127.0.0.1:${P()}/`],
    ['short form 127.1', () => `http://127.1:${P()}/`],
    ['one decimal number', () => `http://2130706433:${P()}/`],
    ['hex parts 0x7f.1', () => `http://0x7f.1:${P()}/`],
    ['one hex number', () => `http://0x7f000001:${P()}/`],
    ['one octal number', () => `http://017700000001:${P()}/`],
    ['octal first part', () => `http://0177.0.0.1:${P()}/`],
    ['zero-padded parts', () => `http://127.000.000.001:${P()}/`],
    ['hex in every part', () => `http://0x7f.0x0.0x0.0x1:${P()}/`],
    ['trailing dot', () => `http://127.0.0.1.:${P()}/`],
    ['percent-encoded host', () => `http://%31%32%37.0.0.1:${P()}/`],
    ['ideographic full stops', () => `http://127\u30020\u30020\u30021:${P()}/`],
    ['circled digits (NFKC)', () => `http://\u2460\u2461\u2466.0.0.1:${P()}/`],
    ['localhost (system resolver)', () => `http://localhost:${P()}/`],
    ['LOCALHOST upper case', () => `http://LOCALHOST:${P()}/`],
    ['https to loopback', () => `https://127.0.0.1:${P()}/`],
    ['0.0.0.0', () => `http://0.0.0.0:${P()}/`],
    ['bare 0', () => `http://0:${P()}/`],
    ['IPv6 loopback', () => `http://[::1]:${P()}/`],
    ['IPv6 loopback in full', () => `http://[0:0:0:0:0:0:0:1]:${P()}/`],
    ['IPv6 unspecified', () => `http://[::]:${P()}/`],
    ['IPv4-mapped dotted', () => `http://[::ffff:127.0.0.1]:${P()}/`],
    ['IPv4-mapped hex', () => `http://[::ffff:7f00:1]:${P()}/`],
    ['IPv4-compatible', () => `http://[::127.0.0.1]:${P()}/`],
    ['IPv4-translated (SIIT)', () => `http://[::ffff:0:127.0.0.1]:${P()}/`],
    ['NAT64 of loopback', () => `http://[64:ff9b::127.0.0.1]:${P()}/`],
    ['NAT64 of a private address', () => `http://[64:ff9b::10.0.0.1]:${P()}/`],
    ['NAT64 local-use prefix', () => `http://[64:ff9b:1::808:808]:${P()}/`],
    ['6to4 of loopback', () => `http://[2002:7f00:1::1]:${P()}/`],
    ['IPv6 link-local', () => `http://[fe80::1]:${P()}/`],
    ['IPv6 unique local fc00::/7', () => `http://[fc00::1]:${P()}/`],
    ['IPv6 unique local fd', () => `http://[fd12:3456::1]:${P()}/`],
    ['IPv6 multicast', () => `http://[ff02::1]:${P()}/`],
    ['IPv6 documentation', () => `http://[2001:db8::1]:${P()}/`],
    ['Teredo', () => `http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]:${P()}/`],
    ['private 10/8', () => `http://10.0.0.1:${P()}/`],
    ['private 172.16/12', () => `http://172.16.5.4:${P()}/`],
    ['private 192.168/16', () => `http://192.168.1.1:${P()}/`],
    ['private in octal', () => `http://0300.0250.0.1:${P()}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT', () => `http://100.64.0.1:${P()}/`],
    ['multicast', () => `http://224.0.0.1:${P()}/`],
    ['broadcast', () => `http://255.255.255.255:${P()}/`],
    ['reserved 240/4', () => `http://240.0.0.1:${P()}/`],
    ['benchmarking 198.18/15', () => `http://198.18.0.1:${P()}/`],
    ['documentation 192.0.2/24', () => `http://192.0.2.1:${P()}/`],
    ['name resolving to loopback', () => `http://internal.example:${P()}/`],
    ['name with a public and a private answer', () => `http://mixed.example:${P()}/`],
    ['name resolving to a mapped address', () => `http://mapped.example:${P()}/`],
    ['name resolving to the metadata service', () => 'http://metadata.example/'],
    ['name resolving to NAT64 of link-local', () => `http://nat64.example:${P()}/`],
    ['name resolving to unique local', () => `http://ula.example:${P()}/`],
    ['name resolving to CGNAT', () => `http://cgnat.example:${P()}/`],
    ['allowed host, other port', () => `http://127.0.0.1:${P()}/`],
    ['redirect to loopback', () => r(`http://127.0.0.1:${P()}/`)],
    ['redirect to a numeric form', () => r(`http://2130706433:${P()}/`)],
    ['redirect to IPv6 loopback', () => r(`http://[::1]:${P()}/`)],
    ['redirect to a name resolving to loopback', () => r(`http://internal.example:${P()}/`)],
    ['307 redirect to loopback', () => r(`http://127.0.0.1:${P()}/`, 307)],
    ['308 redirect to the metadata service', () => r('http://169.254.169.254/latest/', 308)],
    ['protocol-relative redirect', () => r(`//127.0.0.1:${P()}/`)],
  ];
  // Not http(s) or carrying credentials: refused as URLs before any address is looked at.
  const invalid: [string, () => string][] = [
    ['ftp', () => `ftp://127.0.0.1:${P()}/`],
    ['file', () => 'file:///etc/passwd'],
    ['gopher', () => `gopher://127.0.0.1:${P()}/_GET`],
    ['credentials', () => `http://user:pass@127.0.0.1:${P()}/`],
    ['credentials that look like a host', () => `http://127.0.0.1:${P()}@public.example/`],
    ['redirect to ftp', () => r(`ftp://127.0.0.1:${P()}/`)],
    ['not a URL', () => 'http://[::1/'],
  ];

  it('holds at least 40 targets', () => {
    expect(corpus.length + invalid.length).toBeGreaterThanOrEqual(40);
  });

  it.each(corpus)('refuses %s', async (_name, target) => {
    const err = await failure(openOutbound(policy(), target()));
    expect(err.kind).toBe('refused');
    expect(err.message).toBe('the URL points to a private or local address');
    const viaFetch = await failure(outboundFetch(policy())(target()));
    expect(viaFetch.kind).toBe('refused');
    expect(victim.connections()).toBe(0);
  });

  it.each(invalid)('refuses the URL %s', async (_name, target) => {
    const err = await failure(openOutbound(policy(), target()));
    expect(err.kind).toBe('invalid_url');
    expect(err.toAppError().code).toBe(10113);
    expect(victim.connections()).toBe(0);
  });

  it('checks the address at connect time: a DNS answer that changes after the check is refused', async () => {
    let calls = 0;
    const rebinding: Resolver = async () =>
      ++calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const target = `http://rebind.example:${victim.port}/`;
    // The check passes on the first answer...
    await expect(checkTarget(target, { resolve: rebinding })).resolves.toBeInstanceOf(URL);
    // ...and the connection resolves again and is refused on the second.
    const err = await failure(openOutbound(policy({ resolve: rebinding }), target));
    expect(err.kind).toBe('refused');
    expect(calls).toBe(2);
    expect(victim.connections()).toBe(0);
  });

  it('gives an open and a closed internal port the same answer', async () => {
    const answers = await Promise.all(
      [victim.port, closed].flatMap((port) => [
        failure(openOutbound(policy(), `http://127.0.0.1:${port}/`)),
        failure(openOutbound(policy(), `http://internal.example:${port}/`)),
      ]),
    );
    const seen = answers.map((e) => ({ kind: e.kind, message: e.message, api: e.toAppError() }));
    for (const a of seen) expect(a).toEqual(seen[0]);
    expect(seen[0]!.api).toMatchObject({ code: 40004, httpStatus: 400 });
    expect(victim.connections()).toBe(0);
  });

  it('still reaches what the allow-list names (the guard is not just refusing everything)', async () => {
    const before = allowed.connections();
    const res = await outboundFetch(policy())(`${allowed.origin}/ok`);
    expect(await res.text()).toBe('hello');
    expect(allowed.connections()).toBe(before + 1);
    // A name on the allow-list is reached whatever it resolves to; the same address under another name is not.
    const byName = policy({ allow: [`onprem.lan:${allowed.port}`] });
    expect(await (await outboundFetch(byName)(`http://onprem.lan:${allowed.port}/ok`)).text()).toBe('hello');
    expect(resolved).toContain('onprem.lan');
    expect((await failure(outboundFetch(byName)(`http://internal.example:${allowed.port}/ok`))).kind).toBe(
      'refused',
    );
    // A CIDR allows every port of its addresses.
    const byNet = policy({ allow: ['127.0.0.0/8'] });
    expect(await (await outboundFetch(byNet)(`http://internal.example:${allowed.port}/ok`)).text()).toBe(
      'hello',
    );
  });
});

describe('hostile TCP hosts (the SMTP server of the email channel)', () => {
  const P = () => victim.port;
  // Each names the victim listener on 127.0.0.1 (or another inside address) as an admin could type it as the
  // SMTP host; none may be connected to.
  const hosts: [string, string, () => number][] = [
    ['dotted loopback', '127.0.0.1', P],
    ['short form', '127.1', P],
    ['one decimal number', '2130706433', P],
    ['hex parts', '0x7f.1', P],
    ['one hex number', '0x7f000001', P],
    ['one octal number', '017700000001', P],
    ['octal first part', '0177.0.0.1', P],
    ['zero-padded parts', '127.000.000.001', P],
    ['trailing dot', '127.0.0.1.', P],
    ['localhost (system resolver)', 'localhost', P],
    ['LOCALHOST upper case', 'LOCALHOST', P],
    ['0.0.0.0', '0.0.0.0', P],
    ['bare 0', '0', P],
    ['IPv6 loopback', '::1', P],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', P],
    ['IPv6 unique local', 'fd12:3456::1', P],
    ['IPv6 link-local', 'fe80::1', P],
    ['private 10/8', '10.0.0.1', () => 25],
    ['private 172.16/12', '172.16.5.4', () => 587],
    ['private 192.168/16', '192.168.1.1', () => 465],
    ['cloud metadata', '169.254.169.254', () => 80],
    ['carrier-grade NAT', '100.64.0.1', () => 25],
    ['name resolving to loopback', 'internal.example', P],
    ['name with a public and a private answer', 'mixed.example', P],
    ['name resolving to a mapped address', 'mapped.example', P],
    ['name resolving to the metadata service', 'metadata.example', () => 25],
    ['name resolving to NAT64 of link-local', 'nat64.example', P],
    ['name resolving to unique local', 'ula.example', P],
    ['name resolving to CGNAT', 'cgnat.example', P],
    ['allowed address, other port', '127.0.0.1', P],
  ];

  it.each(hosts)('refuses %s', async (_name, host, port) => {
    const err = await failure(connectOutbound(policy(), host, port()));
    expect(err.kind).toBe('refused');
    expect(err.message).toBe('the host is a private or local address');
    expect(err.toAppError('host')).toMatchObject({ code: 40004, httpStatus: 400 });
    expect(victim.connections()).toBe(0);
  });

  it.each([
    ['with a port', '127.0.0.1:25', 25],
    ['with credentials', 'user@127.0.0.1', 25],
    ['with a path', '127.0.0.1/x', 25],
    ['with a space', 'smtp example', 25],
    ['empty', '', 25],
    ['port 0', 'smtp.example.com', 0],
    ['port out of range', 'smtp.example.com', 70000],
  ])('refuses a host %s as input (10113)', async (_name, host, port) => {
    const err = await failure(connectOutbound(policy(), host, port));
    expect(err.kind).toBe('invalid_url');
    expect(err.toAppError('host').code).toBe(10113);
    expect(victim.connections()).toBe(0);
  });

  it('checks the address at connect time: a DNS answer that changes after the check is refused', async () => {
    let calls = 0;
    const rebinding: Resolver = async () =>
      ++calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    await expect(
      checkTarget(`http://rebind.example:${victim.port}/`, { resolve: rebinding }),
    ).resolves.toBeInstanceOf(URL);
    const err = await failure(connectOutbound(policy({ resolve: rebinding }), 'rebind.example', victim.port));
    expect(err.kind).toBe('refused');
    expect(calls).toBe(2);
    expect(victim.connections()).toBe(0);
  });

  it('gives an open and a closed internal port the same answer', async () => {
    const answers = await Promise.all(
      [victim.port, closed].flatMap((port) => [
        failure(connectOutbound(policy(), '127.0.0.1', port)),
        failure(connectOutbound(policy(), 'internal.example', port)),
      ]),
    );
    const seen = answers.map((e) => ({ kind: e.kind, message: e.message, api: e.toAppError('host') }));
    for (const a of seen) expect(a).toEqual(seen[0]);
    expect(victim.connections()).toBe(0);
  });

  it('connects to the checked address and keeps the name for TLS; allowed but closed is 40001', async () => {
    const before = allowed.connections();
    // A name whose answer the allow-list admits: the socket goes to that address, the name stays for SNI.
    const byName = await connectOutbound(policy(), 'internal.example', allowed.port);
    expect(byName).toMatchObject({ host: 'internal.example', servername: 'internal.example' });
    expect(byName.socket.remoteAddress).toBe('127.0.0.1');
    expect(resolved).toEqual(['internal.example']);
    byName.socket.destroy();
    // A literal address: normalised, no name to present.
    const byAddress = await connectOutbound(policy(), '0x7f.1', allowed.port);
    expect(byAddress).toMatchObject({ host: '127.0.0.1', servername: undefined });
    byAddress.socket.destroy();
    await eventually(() => allowed.connections() === before + 2);
    const err = await failure(
      connectOutbound(policy({ allow: [`127.0.0.1:${closed}`] }), '127.0.0.1', closed),
    );
    expect(err.kind).toBe('connect');
    expect(err.toAppError('host')).toMatchObject({ code: 40001, httpStatus: 502 });
  });
});

describe('limits', () => {
  it('stops at the size limit', async () => {
    const err = await failure(outboundFetch(policy({ maxBytes: 1000 }))(`${allowed.origin}/big`));
    expect(err.kind).toBe('too_large');
    expect(err.toAppError()).toMatchObject({ code: 40002, httpStatus: 502 });
  });

  it('has one deadline for the answer and for the body', async () => {
    for (const path of ['/silent', '/stall']) {
      const started = Date.now();
      const err = await failure(outboundFetch(policy({ timeoutMs: 300 }))(`${allowed.origin}${path}`));
      expect(err.kind, path).toBe('timeout');
      expect(Date.now() - started, path).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started, path).toBeLessThan(3000);
    }
  });

  it('follows at most maxRedirects redirects; 0 hands the 3xx to the caller', async () => {
    const err = await failure(outboundFetch(policy())(`${allowed.origin}/loop`));
    expect(err.kind).toBe('redirects');
    const res = await outboundFetch(policy({ maxRedirects: 0 }))(`${allowed.origin}/loop`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/loop');
  });

  it('answers 40001 when nothing listens on an allowed address', async () => {
    const err = await failure(
      outboundFetch(policy({ allow: [`127.0.0.1:${closed}`] }))(`http://127.0.0.1:${closed}/`),
    );
    expect(err.kind).toBe('connect');
    expect(err.toAppError()).toMatchObject({ code: 40001, httpStatus: 502 });
  });
});

describe('outboundFetch', () => {
  it('sends method, body and headers, and gives status, headers and body back', async () => {
    const res = await outboundFetch(policy())(`${allowed.origin}/echo`, {
      method: 'POST',
      body: JSON.stringify({ a: 1 }),
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(await res.json()).toEqual({
      method: 'POST',
      body: '{"a":1}',
      type: 'application/json',
      auth: 'Bearer t',
    });
    const form = await outboundFetch(policy())(`${allowed.origin}/echo`, {
      method: 'POST',
      body: new URLSearchParams({ x: 'y z' }),
    });
    expect(await form.json()).toMatchObject({
      body: 'x=y+z',
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
    });
  });

  it('re-sends the body on 307 and drops it (GET) on 302', async () => {
    const to = encodeURIComponent('/echo');
    const kept = await outboundFetch(policy())(`${allowed.origin}/redirect?status=307&to=${to}`, {
      method: 'POST',
      body: 'payload',
    });
    expect(await kept.json()).toMatchObject({ method: 'POST', body: 'payload' });
    const dropped = await outboundFetch(policy())(`${allowed.origin}/redirect?status=302&to=${to}`, {
      method: 'POST',
      body: 'payload',
    });
    expect(await dropped.json()).toMatchObject({ method: 'GET', body: '', type: null });
  });

  it("rejects with the caller's abort reason", async () => {
    const controller = new AbortController();
    const pending = outboundFetch(policy())(`${allowed.origin}/silent`, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });
});

describe('addresses and the allow-list', () => {
  it('tells public addresses from the rest', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
    for (const a of [
      '127.0.0.1',
      '::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '100.64.1.1',
      'fe80::1%eth0',
      'nonsense',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('reads host, host:port, addresses, [IPv6]:port and CIDRs, and refuses anything else', () => {
    expect(
      parseAllowList([
        'onprem.lan',
        'fw.lan:8443',
        '10.20.0.0/16',
        '192.168.1.5:80',
        '[fd00::1]:443',
        'fd00::/8',
      ]),
    ).toHaveLength(6);
    expect(parseAllowList(['', ' '])).toEqual([]);
    for (const bad of ['http://x', '10.0.0.0/33', 'host:99999', 'host:0', 'a b', '10.0.0.0/x']) {
      expect(() => parseAllowList([bad]), bad).toThrow();
    }
  });

  it('finds a refusal wrapped as the cause of another error', () => {
    const wrapped = new Error('provider failed', { cause: new OutboundError('refused', 'x') });
    expect(outboundRefusal(wrapped, 'config.base_url')).toMatchObject({
      code: 40004,
      httpStatus: 400,
      details: [{ field: 'config.base_url' }],
    });
    expect(outboundRefusal(new OutboundError('connect', 'x'))).toBeUndefined();
  });
});
