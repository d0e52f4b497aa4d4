import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@cellhub/contract/platforms';
import type { DeviceLink } from '../../gateway/device-link';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { withPlatformParam } from './platform-params.service';
import { platformDeviceCredentials, platforms } from './platforms.table';

let t: TestApp;
let admin: string;
let user: { uid: number; token: string };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  user = await t.createUser();
});
afterAll(() => t.close());

const data = <T = Record<string, unknown>>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

const ALIYUN = {
  name: 'Aliyun Shanghai',
  platform_type: 'aliyun',
  platform_config: {
    region_id: 'cn-shanghai',
    access_key_id: 'LTAI5tExample',
    access_key_secret: 'very-secret-access-key',
  },
};

async function createPlatform(payload: Record<string, unknown>) {
  return data<{ id: number; platform_config: Record<string, unknown> }>(
    await t.inject({ method: 'POST', url: '/api/platforms', token: admin, payload }),
  );
}

async function productWithDevices(token: string, body: Record<string, unknown>, sns: string[]) {
  const p = data<{ product_key: string }>(
    await t.inject({ method: 'POST', url: '/api/products', token, payload: body }),
  );
  if (sns.length) {
    data(
      await t.inject({
        method: 'POST',
        url: '/api/devices',
        token,
        payload: { product_key: p.product_key, sn: sns },
      }),
    );
  }
  return p.product_key;
}

async function deviceParam(token: string, sn: string) {
  return data<{ iot_platform_param: Record<string, unknown>; expect_config_version: number }>(
    await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token }),
  );
}

describe('platforms: admin only', () => {
  it('refuses role user on every admin route, but lets any user list names to bind a product', async () => {
    const p = await createPlatform({ ...ALIYUN, name: 'Role check' });
    for (const req of [
      { method: 'GET' as const, url: '/api/platforms' },
      { method: 'POST' as const, url: '/api/platforms', payload: ALIYUN },
      { method: 'GET' as const, url: `/api/platforms/${p.id}` },
      { method: 'PUT' as const, url: `/api/platforms/${p.id}`, payload: ALIYUN },
      { method: 'DELETE' as const, url: `/api/platforms/${p.id}` },
    ]) {
      const res = await t.inject({ ...req, token: user.token });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).code).toBe(10108);
    }
    const options = data<{ id: number; name: string; platform_type: string }[]>(
      await t.inject({ method: 'GET', url: '/api/platforms/options', token: user.token }),
    );
    const mine = options.find((o) => o.id === p.id);
    expect(mine).toEqual({ id: p.id, name: 'Role check', platform_type: 'aliyun' });
    expect(JSON.stringify(options)).not.toContain('very-secret');
  });
});

describe('platforms: platform_config per type', () => {
  it.each([
    ['aliyun without region', { platform_type: 'aliyun', platform_config: {} }, 'platform_config.region_id'],
    [
      'aliyun with a bad securemode',
      { platform_type: 'aliyun', platform_config: { region_id: 'cn-beijing', securemode: 1 } },
      'platform_config.securemode',
    ],
    [
      'tencent with a bad signmethod',
      { platform_type: 'tencent', platform_config: { signmethod: 'md5' } },
      'platform_config.signmethod',
    ],
    [
      'azure without hub host',
      { platform_type: 'azure', platform_config: { policy_name: 'device' } },
      'platform_config.hub_host',
    ],
    [
      'azure with a policy key that is not base64',
      {
        platform_type: 'azure',
        platform_config: { hub_host: 'h.azure-devices.net', policy_key: 'not base64!' },
      },
      'platform_config.policy_key',
    ],
    [
      'netkit without app key',
      { platform_type: 'netkit', platform_config: { host: 'nk.example.com' } },
      'platform_config.app_key',
    ],
    [
      'mqtt with a bad host',
      { platform_type: 'mqtt', platform_config: { host: 'a b' } },
      'platform_config.host',
    ],
    ['an unknown type', { platform_type: 'huawei', platform_config: {} }, 'platform_type'],
  ])('refuses %s (10113, field named)', async (_name, body, field) => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/platforms',
      token: admin,
      payload: { name: 'bad', ...body },
    });
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect((err.details as { field: string }[]).map((d) => d.field)).toContain(field);
  });

  it('creates each type with its defaults', async () => {
    const made = {
      tencent: await createPlatform({ name: 'Tencent', platform_type: 'tencent', platform_config: {} }),
      azure: await createPlatform({
        name: 'Azure',
        platform_type: 'azure',
        platform_config: { hub_host: 'myhub.azure-devices.net' },
      }),
      netkit: await createPlatform({
        name: 'NetKit',
        platform_type: 'netkit',
        platform_config: { host: 'nk.example.com', app_key: 'ak1' },
      }),
      mqtt: await createPlatform({
        name: 'Broker',
        platform_type: 'mqtt',
        platform_config: { host: 'broker.example.com', tls: true, port: 8883 },
      }),
    };
    expect(made.tencent.platform_config).toMatchObject({
      region: 'ap-guangzhou',
      port: 1883,
      token_ttl_days: 365,
    });
    expect(made.azure.platform_config).toMatchObject({
      port: 8883,
      api_version: '2021-04-12',
      policy_key: '',
    });
    expect(made.netkit.platform_config).toMatchObject({ port: 1883, tls: false, app_secret: '' });
    expect(made.mqtt.platform_config).toMatchObject({ port: 8883, tls: true, password: '' });
  });
});

describe('platforms: secrets', () => {
  it('masks secrets in answers, stores them encrypted, keeps them when the mask comes back', async () => {
    const p = await createPlatform({ ...ALIYUN, name: 'Secret keeper' });
    expect(p.platform_config.access_key_secret).toBe(SECRET_MASK);
    expect(p.platform_config.access_key_id).toBe('LTAI5tExample');

    const listed = await t.inject({ method: 'GET', url: '/api/platforms?keyword=keeper', token: admin });
    expect(listed.body).not.toContain('very-secret-access-key');
    expect(listed.json().total).toBe(1);
    const one = await t.inject({ method: 'GET', url: `/api/platforms/${p.id}`, token: admin });
    expect(one.body).not.toContain('very-secret-access-key');

    const [row] = await t.app.deps.db.select().from(platforms).where(eq(platforms.id, p.id));
    expect(JSON.stringify(row)).not.toContain('very-secret-access-key');
    expect(row!.secrets.startsWith('v1:')).toBe(true);

    const kept = data<{ platform_config: Record<string, unknown> }>(
      await t.inject({
        method: 'PUT',
        url: `/api/platforms/${p.id}`,
        token: admin,
        payload: {
          ...ALIYUN,
          name: 'Secret keeper 2',
          platform_config: { ...ALIYUN.platform_config, access_key_secret: SECRET_MASK },
        },
      }),
    );
    expect(kept.platform_config.access_key_secret).toBe(SECRET_MASK);
    const [after] = await t.app.deps.db.select().from(platforms).where(eq(platforms.id, p.id));
    expect(t.app.deps.box.decrypt(after!.secrets, `platform:${p.id}`)).toContain('very-secret-access-key');

    const cleared = data<{ platform_config: Record<string, unknown> }>(
      await t.inject({
        method: 'PUT',
        url: `/api/platforms/${p.id}`,
        token: admin,
        payload: { ...ALIYUN, platform_config: { ...ALIYUN.platform_config, access_key_secret: '' } },
      }),
    );
    expect(cleared.platform_config.access_key_secret).toBe('');
  });
});

describe('platforms: products bound to them', () => {
  it('validates the binding against the platform type', async () => {
    const p = await createPlatform({ ...ALIYUN, name: 'Binding check' });
    const missing = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: user.token,
      payload: { name: 'x', iot_platform_id: 99999 },
    });
    expect((errorOf(missing).details as { field: string }[])[0]!.field).toBe('iot_platform_id');
    const wrong = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: user.token,
      payload: { name: 'x', iot_platform_id: p.id, iot_platform_config: { product_id: 'X' } },
    });
    expect(errorOf(wrong).code).toBe(10113);
    expect((errorOf(wrong).details as { field: string }[])[0]!.field).toBe('iot_platform_config.product_key');
  });

  it('aliyun: credentials per device give the signed MQTT parameters, pushed as a new config version', async () => {
    const p = await createPlatform({ ...ALIYUN, name: 'Aliyun params' });
    const productKey = await productWithDevices(
      user.token,
      { name: 'Bound', iot_platform_id: p.id, iot_platform_config: { product_key: 'a1FxISeKbq9' } },
      ['ALI-1', 'ALI-2'],
    );
    const detail = data(
      await t.inject({ method: 'GET', url: `/api/products/${productKey}`, token: user.token }),
    );
    expect(detail).toMatchObject({
      iot_platform_id: p.id,
      iot_platform_name: 'Aliyun params',
      iot_platform_type: 'aliyun',
      iot_platform_config: { product_key: 'a1FxISeKbq9' },
    });
    const before = await deviceParam(user.token, 'ALI-1');
    expect(before.iot_platform_param).toEqual({});

    const results = data<{ sn: string; code: number }[]>(
      await t.inject({
        method: 'PUT',
        url: `/api/products/${productKey}/platform-credentials`,
        token: user.token,
        payload: {
          items: [
            { sn: 'ALI-1', device_name: 'dtu-one', device_secret: 'dev-secret-1' },
            { sn: 'NOT-MINE', device_secret: 'x' },
          ],
        },
      }),
    );
    expect(results).toEqual([
      { sn: 'ALI-1', code: 0 },
      { sn: 'NOT-MINE', code: 10117, message: 'no such device of this product' },
    ]);

    const after = await deviceParam(user.token, 'ALI-1');
    expect(after.expect_config_version).toBe(before.expect_config_version + 1);
    const param = after.iot_platform_param as Record<string, string | number | boolean>;
    expect(param).toMatchObject({
      platform_type: 'aliyun',
      platform_id: p.id,
      host: 'a1FxISeKbq9.iot-as-mqtt.cn-shanghai.aliyuncs.com',
      port: 1883,
      tls: false,
      username: 'dtu-one&a1FxISeKbq9',
      product_key: 'a1FxISeKbq9',
      device_name: 'dtu-one',
      expires_at: null,
    });
    const match = /^ALI-1\|securemode=3,signmethod=hmacsha256,timestamp=(\d+)\|$/.exec(
      String(param.client_id),
    );
    expect(match).not.toBeNull();
    const content = `clientIdALI-1deviceNamedtu-oneproductKeya1FxISeKbq9timestamp${match![1]}`;
    expect(param.password).toBe(createHmac('sha256', 'dev-secret-1').update(content).digest('hex'));

    const creds = await t.inject({
      method: 'GET',
      url: `/api/products/${productKey}/platform-credentials`,
      token: user.token,
    });
    expect(creds.body).not.toContain('dev-secret-1');
    expect(creds.json().data).toEqual([
      expect.objectContaining({ sn: 'ALI-1', device_name: 'dtu-one', has_secret: true, has_param: true }),
      expect.objectContaining({ sn: 'ALI-2', device_name: 'ALI-2', has_secret: false, has_param: false }),
    ]);
    const [stored] = await t.app.deps.db.select().from(platformDeviceCredentials);
    expect(stored!.secret).not.toContain('dev-secret-1');

    // Nothing changed: a sync leaves versions alone; ALI-2 still lacks its DeviceSecret.
    const sync = data(
      await t.inject({ method: 'POST', url: `/api/products/${productKey}/platform-sync`, token: user.token }),
    );
    expect(sync).toEqual({ updated: 0, missing_credentials: 1 });
    expect((await deviceParam(user.token, 'ALI-1')).expect_config_version).toBe(after.expect_config_version);
  });

  it('tencent: refuses a PSK that is not base64, signs with the decoded PSK and an expiry', async () => {
    const p = await createPlatform({ name: 'Tencent params', platform_type: 'tencent', platform_config: {} });
    const productKey = await productWithDevices(
      user.token,
      { name: 'Tencent bound', iot_platform_id: p.id, iot_platform_config: { product_id: 'J5M4D6INI9' } },
      ['TC-1'],
    );
    const bad = data<{ code: number }[]>(
      await t.inject({
        method: 'PUT',
        url: `/api/products/${productKey}/platform-credentials`,
        token: user.token,
        payload: { items: [{ sn: 'TC-1', device_secret: 'plain text' }] },
      }),
    );
    expect(bad[0]!.code).toBe(10113);
    data(
      await t.inject({
        method: 'PUT',
        url: `/api/products/${productKey}/platform-credentials`,
        token: user.token,
        payload: {
          items: [{ sn: 'TC-1', device_name: 'pi_dht11', device_secret: 'u/nAbSmZKbCW7lugludvLg==' }],
        },
      }),
    );
    const param = (await deviceParam(user.token, 'TC-1')).iot_platform_param as Record<string, string>;
    expect(param.host).toBe('J5M4D6INI9.iotcloud.tencentdevices.com');
    expect(param.client_id).toBe('J5M4D6INI9pi_dht11');
    const m = /^J5M4D6INI9pi_dht11;12010126;([A-Z0-9]{5});(\d+)$/.exec(param.username!);
    expect(m).not.toBeNull();
    const expiry = Number(m![2]);
    expect(expiry * 1000 - Date.now()).toBeGreaterThan(364 * 86_400_000);
    expect(param.expires_at).toBe(new Date(expiry * 1000).toISOString());
    const token = createHmac('sha256', Buffer.from('u/nAbSmZKbCW7lugludvLg==', 'base64'))
      .update(param.username!)
      .digest('hex');
    expect(param.password).toBe(`${token};hmacsha256`);
  });

  it('azure: a hub policy key signs SAS tokens for devices without their own key', async () => {
    const key = Buffer.alloc(32, 9).toString('base64');
    const p = await createPlatform({
      name: 'Azure params',
      platform_type: 'azure',
      platform_config: { hub_host: 'myhub.azure-devices.net', policy_name: 'device', policy_key: key },
    });
    await productWithDevices(user.token, { name: 'Azure bound', iot_platform_id: p.id }, ['AZ-1']);
    // Devices created after the binding get their parameters once the devices module calls the sync hook; until
    // then the owner can push them.
    const productKey = data<{ product_key: string; name: string }[]>(
      await t.inject({ method: 'GET', url: '/api/products?keyword=Azure%20bound', token: user.token }),
    )[0]!.product_key;
    data(
      await t.inject({ method: 'POST', url: `/api/products/${productKey}/platform-sync`, token: user.token }),
    );
    const param = (await deviceParam(user.token, 'AZ-1')).iot_platform_param as Record<string, string>;
    expect(param).toMatchObject({
      host: 'myhub.azure-devices.net',
      port: 8883,
      tls: true,
      client_id: 'AZ-1',
      username: 'myhub.azure-devices.net/AZ-1/?api-version=2021-04-12',
    });
    const se = /&se=(\d+)&skn=device$/.exec(param.password!);
    expect(se).not.toBeNull();
    const sr = encodeURIComponent('myhub.azure-devices.net/devices/AZ-1');
    const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(`${sr}\n${se![1]}`).digest('base64');
    expect(param.password).toBe(
      `SharedAccessSignature sr=${sr}&sig=${encodeURIComponent(sig)}&se=${se![1]}&skn=device`,
    );
  });

  it('mqtt: devices created or imported after the binding get their parameters at once', async () => {
    const p = await createPlatform({
      name: 'Broker for new devices',
      platform_type: 'mqtt',
      platform_config: {
        host: 'new.example.com',
        username: 'fleet',
        password: 'pw-new',
        client_id_prefix: 'n-',
      },
    });
    const productKey = await productWithDevices(user.token, { name: 'Bound first', iot_platform_id: p.id }, [
      'NEW-1',
    ]);
    expect((await deviceParam(user.token, 'NEW-1')).iot_platform_param).toMatchObject({
      host: 'new.example.com',
      client_id: 'n-NEW-1',
    });
    const boundary = 'x-boundary';
    const res = await t.inject({
      method: 'POST',
      url: `/api/devices/import?product_key=${productKey}`,
      token: user.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload:
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="d.csv"\r\n` +
        `Content-Type: text/csv\r\n\r\nsn,name\nNEW-2,imported\n\r\n--${boundary}--\r\n`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await deviceParam(user.token, 'NEW-2')).iot_platform_param).toMatchObject({
      host: 'new.example.com',
      client_id: 'n-NEW-2',
    });
  });

  it('mqtt: a platform change reaches the devices, and online devices get the configuration at once', async () => {
    const p = await createPlatform({
      name: 'Broker params',
      platform_type: 'mqtt',
      platform_config: {
        host: 'broker.example.com',
        username: 'fleet',
        password: 'pw-1',
        client_id_prefix: 'ch-',
      },
    });
    const productKey = await productWithDevices(user.token, { name: 'Broker bound' }, ['MQ-1']);
    const sent: { sn: string; kind: string; payload: unknown }[] = [];
    const realLink = t.app.deps.link;
    const fake: DeviceLink = {
      send: async (_pk, sn, kind, payload) => {
        sent.push({ sn, kind, payload });
      },
      // Connected as the gateway sees it; the stored flag still says offline.
      online: (sn, stored) => {
        expect(stored).toBe(0);
        return sn === 'MQ-1';
      },
      kick: () => undefined,
      invalidate: () => undefined,
    };
    t.app.deps.link = fake;
    try {
      // Binding an existing product computes its devices' parameters.
      data(
        await t.inject({
          method: 'PUT',
          url: `/api/products/${productKey}`,
          token: user.token,
          payload: { iot_platform_id: p.id },
        }),
      );
      let param = (await deviceParam(user.token, 'MQ-1')).iot_platform_param;
      expect(param).toMatchObject({
        host: 'broker.example.com',
        client_id: 'ch-MQ-1',
        username: 'fleet',
        password: 'pw-1',
      });
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        sn: 'MQ-1',
        kind: 'config',
        payload: { config: { iot_platform_param: { host: 'broker.example.com', password: 'pw-1' } } },
      });
      expect(JSON.stringify(sent[0]!.payload)).not.toContain('fingerprint');

      // The secret kept through the mask; a new password reaches the device.
      data(
        await t.inject({
          method: 'PUT',
          url: `/api/platforms/${p.id}`,
          token: admin,
          payload: {
            name: 'Broker params',
            platform_type: 'mqtt',
            platform_config: {
              host: 'broker.example.com',
              username: 'fleet',
              password: 'pw-2',
              client_id_prefix: 'ch-',
            },
          },
        }),
      );
      param = (await deviceParam(user.token, 'MQ-1')).iot_platform_param;
      expect(param).toMatchObject({ password: 'pw-2' });
      expect(sent).toHaveLength(2);

      // Unbinding clears them (and tells the device).
      data(
        await t.inject({
          method: 'PUT',
          url: `/api/products/${productKey}`,
          token: user.token,
          payload: { iot_platform_id: null },
        }),
      );
      expect((await deviceParam(user.token, 'MQ-1')).iot_platform_param).toEqual({});
      expect(sent).toHaveLength(3);
      expect(sent[2]!.payload).not.toHaveProperty('config.iot_platform_param');
    } finally {
      t.app.deps.link = realLink;
    }
  });

  it("every configuration pushed to a bound product's device carries iot_platform_param", async () => {
    const p = await createPlatform({
      name: 'Config carrier',
      platform_type: 'mqtt',
      platform_config: { host: 'carrier.example.com', password: 'pw' },
    });
    await productWithDevices(user.token, { name: 'Carrier', iot_platform_id: p.id }, ['CFG-1']);
    const productKey = data<{ product_key: string }[]>(
      await t.inject({ method: 'GET', url: '/api/products?keyword=Carrier', token: user.token }),
    )[0]!.product_key;
    data(
      await t.inject({ method: 'POST', url: `/api/products/${productKey}/platform-sync`, token: user.token }),
    );
    const sent: unknown[] = [];
    const realLink = t.app.deps.link;
    t.app.deps.link = {
      send: async (_pk, _sn, _kind, payload) => {
        sent.push(payload);
      },
      // Connected as the gateway sees it; the stored flag still says offline.
      online: (sn, stored) => {
        expect(stored).toBe(0);
        return sn === 'CFG-1';
      },
      kick: () => undefined,
      invalidate: () => undefined,
    };
    try {
      data(
        await t.inject({
          method: 'PUT',
          url: '/api/devices/CFG-1/config',
          token: user.token,
          payload: { config: { mqtt: { keepalive: 120 } } },
        }),
      );
    } finally {
      t.app.deps.link = realLink;
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      config: {
        mqtt: { keepalive: 120 },
        iot_platform_param: { host: 'carrier.example.com', password: 'pw' },
      },
    });
  });

  it('refuses to delete a platform with bound products (10112, details.product_count) or to change its type', async () => {
    const p = await createPlatform({ ...ALIYUN, name: 'Busy' });
    const productKey = await productWithDevices(
      user.token,
      { name: 'Busy bound', iot_platform_id: p.id, iot_platform_config: { product_key: 'pk1' } },
      [],
    );
    const listed = data<{ id: number; product_count: number }[]>(
      await t.inject({ method: 'GET', url: '/api/platforms?keyword=Busy', token: admin }),
    );
    expect(listed.find((x) => x.id === p.id)?.product_count).toBe(1);
    const refused = await t.inject({ method: 'DELETE', url: `/api/platforms/${p.id}`, token: admin });
    expect(errorOf(refused).code).toBe(10112);
    expect(errorOf(refused).details).toEqual({ product_count: 1 });
    const retype = await t.inject({
      method: 'PUT',
      url: `/api/platforms/${p.id}`,
      token: admin,
      payload: { name: 'Busy', platform_type: 'mqtt', platform_config: { host: 'h.example.com' } },
    });
    expect(errorOf(retype).code).toBe(10110);

    data(
      await t.inject({
        method: 'PUT',
        url: `/api/products/${productKey}`,
        token: user.token,
        payload: { iot_platform_id: null },
      }),
    );
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/platforms/${p.id}`, token: admin })).statusCode,
    ).toBe(200);
    expect(errorOf(await t.inject({ method: 'GET', url: `/api/platforms/${p.id}`, token: admin })).code).toBe(
      10107,
    );
  });
});

describe('withPlatformParam', () => {
  it('adds iot_platform_param without the fingerprint, and nothing for unbound devices', () => {
    const config = { mqtt: { keepalive: 60 } };
    expect(withPlatformParam({ iotPlatformParam: {} }, config)).toBe(config);
    expect(
      withPlatformParam({ iotPlatformParam: { platform_type: 'mqtt', host: 'h', fingerprint: 'f' } }, config),
    ).toEqual({ mqtt: { keepalive: 60 }, iot_platform_param: { platform_type: 'mqtt', host: 'h' } });
  });
});
