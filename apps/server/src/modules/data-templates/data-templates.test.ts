import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  SlaveItem,
  TemplateApplyResult,
  TemplateDetail,
  VariableBody,
  VariableImportResult,
  VariableItem,
} from '@cellhub/contract/data-templates';
import type { PropertyLabel } from '@cellhub/contract/devices';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
  up,
} from '../../test/gateway-test-kit';

let t: TestApp;
let admin: string;
type User = { uid: number; token: string; username: string };
let owner: User;
let stranger: User;
let viewer: User;
let controller: User;
let dev: TestDevice;
let dev2: TestDevice;
const clients: MqttClient[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  owner = await t.createUser();
  stranger = await t.createUser();
  viewer = await t.createUser();
  controller = await t.createUser();
  const made = await createDevices(t, owner.token, ['DT-1', 'DT-2']);
  dev = made[0]!;
  dev2 = made[1]!;
  for (const [who, right] of [
    [viewer, 'view'],
    [controller, 'control'],
  ] as const) {
    const res = await t.inject({
      method: 'POST',
      url: '/api/shares',
      token: owner.token,
      payload: { sns: ['DT-1'], to: who.username, right },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
});
afterAll(async () => {
  for (const c of clients) await c.endAsync().catch(() => undefined);
  await t.close();
});

const TEMP: VariableBody = {
  name: 'Temperature',
  tag: 'temp',
  unit: '°C',
  register_type: 'holding',
  register_address: 1,
  data_format: 'int16',
  decimals: 1,
  capture_formula: 'x*0.1',
};

async function makeTemplate(token: string, name = 'Boiler'): Promise<TemplateDetail> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/data-templates',
    token,
    payload: { name, type: 'modbus_rtu', remark: 'test', collect_mode: 'dtu' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return data<TemplateDetail>(res);
}

async function addSlave(token: string, id: number, address = 1): Promise<SlaveItem> {
  const res = await t.inject({
    method: 'POST',
    url: `/api/data-templates/${id}/slaves`,
    token,
    payload: { name: `Slave ${address}`, address, serial_port: 'rs485' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return data<SlaveItem>(res);
}

const addVar = (token: string, id: number, slave: number, payload: VariableBody) =>
  t.inject({ method: 'POST', url: `/api/data-templates/${id}/slaves/${slave}/variables`, token, payload });

/** A complete template: one slave with temp and pressure. */
async function complete(token: string, name = 'Boiler') {
  const tpl = await makeTemplate(token, name);
  const slave = await addSlave(token, tpl.id);
  for (const v of [
    TEMP,
    {
      ...TEMP,
      name: 'Pressure',
      tag: 'press',
      unit: 'kPa',
      register_address: 2,
      data_format: 'float32' as const,
    },
  ]) {
    const r = await addVar(token, tpl.id, slave.id, v);
    expect(r.statusCode, r.body).toBe(200);
  }
  return { tpl, slave };
}

describe('templates', () => {
  it('creates, lists with counts, updates and copies', async () => {
    const { tpl } = await complete(owner.token, 'Copy source');
    const list = await t.inject({
      method: 'GET',
      url: '/api/data-templates?keyword=Copy',
      token: owner.token,
    });
    const items = data<{ id: number; slave_count: number; variable_count: number }[]>(list);
    expect(items.find((i) => i.id === tpl.id)).toMatchObject({ slave_count: 1, variable_count: 2 });
    const upd = await t.inject({
      method: 'PUT',
      url: `/api/data-templates/${tpl.id}`,
      token: owner.token,
      payload: { remark: 'changed', collect_mode: 'platform' },
    });
    expect(data<TemplateDetail>(upd)).toMatchObject({ remark: 'changed', collect_mode: 'platform' });
    const copy = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${tpl.id}/copy`,
      token: owner.token,
      payload: {},
    });
    const c = data<TemplateDetail>(copy);
    expect(c.id).not.toBe(tpl.id);
    expect(c.name).toBe('Copy source copy');
    expect(c.slaves).toHaveLength(1);
    expect(c.slaves[0]!.variables.map((v) => v.tag)).toEqual(['temp', 'press']);
    expect(c.slaves[0]!.id).not.toBe(tpl.id);
  });

  it('checks variables: 80003 range, 80004 formula, 80005 format, 80006 duplicate tag, defaults', async () => {
    const tpl = await makeTemplate(owner.token, 'Rules');
    const slave = await addSlave(owner.token, tpl.id);
    const cases: [Partial<VariableBody>, number, string][] = [
      [{ register_address: 0 }, 80003, 'register_address'],
      [{ register_address: 65536 }, 80003, 'register_address'],
      [{ register_address: 65535, data_format: 'float32' }, 80003, 'register_address'],
      [{ capture_formula: 'x*' }, 80004, 'capture_formula'],
      [{ capture_formula: 'process.exit()' }, 80004, 'capture_formula'],
      [{ control_formula: 'constructor' }, 80004, 'control_formula'],
      [{ register_type: 'coil', data_format: 'int16' }, 80005, 'data_format'],
      [{ data_format: 'int32', byte_order: 'AB' }, 80005, 'byte_order'],
      [{ register_type: 'input', access: 'rw' }, 80005, 'access'],
      [{ function_code: 1 }, 80005, 'function_code'],
    ];
    for (const [patch, code, field] of cases) {
      const res = await addVar(owner.token, tpl.id, slave.id, { ...TEMP, ...patch });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      const err = errorOf(res);
      expect(err.code, JSON.stringify(patch)).toBe(code);
      expect((err.details as { field: string }[])[0]!.field).toBe(field);
    }
    const okRes = await addVar(owner.token, tpl.id, slave.id, { ...TEMP, data_format: 'float32' });
    expect(data<VariableItem>(okRes)).toMatchObject({ byte_order: 'ABCD', function_code: 3 });
    const dup = await addVar(owner.token, tpl.id, slave.id, { ...TEMP, register_address: 9 });
    expect(errorOf(dup).code).toBe(80006);
    // The tag is unique in the template, not only the slave.
    const slave2 = await addSlave(owner.token, tpl.id, 2);
    expect(errorOf(await addVar(owner.token, tpl.id, slave2.id, TEMP)).code).toBe(80006);
    // Bad text never reaches the database.
    const nul = await addVar(owner.token, tpl.id, slave.id, { ...TEMP, tag: 'x2', name: 'a\u0000b' });
    expect(errorOf(nul).code).toBe(10113);
    const huge = await addVar(owner.token, tpl.id, slave.id, { ...TEMP, tag: 'x3', register_address: 1e20 });
    expect(errorOf(huge).code).toBe(10113);
  });

  it('updates a variable with the same rules', async () => {
    const { tpl } = await complete(owner.token, 'Update');
    const v = tpl.id;
    const detail = data<TemplateDetail>(
      await t.inject({ method: 'GET', url: `/api/data-templates/${v}`, token: owner.token }),
    );
    const press = detail.slaves[0]!.variables.find((x) => x.tag === 'press')!;
    const bad = await t.inject({
      method: 'PUT',
      url: `/api/data-templates/${v}/variables/${press.id}`,
      token: owner.token,
      payload: { tag: 'temp' },
    });
    expect(errorOf(bad).code).toBe(80006);
    const good = await t.inject({
      method: 'PUT',
      url: `/api/data-templates/${v}/variables/${press.id}`,
      token: owner.token,
      payload: { data_format: 'uint16', unit: 'bar' },
    });
    expect(data<VariableItem>(good)).toMatchObject({ data_format: 'uint16', byte_order: 'AB', unit: 'bar' });
  });
});

describe('Excel', () => {
  it('exports a slave and imports rows with a result per row', async () => {
    const { tpl, slave } = await complete(owner.token, 'Sheet');
    const exp = await t.inject({
      method: 'GET',
      url: `/api/data-templates/${tpl.id}/slaves/${slave.id}/variables/export`,
      token: owner.token,
    });
    expect(exp.statusCode).toBe(200);
    expect(exp.headers['content-type']).toContain('spreadsheetml');
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(exp.rawPayload as unknown as ArrayBuffer);
    const ws = wb.worksheets[0]!;
    expect(ws.getRow(2).getCell(2).text).toBe('temp');
    // Change temp's unit, add a good row and three bad ones.
    ws.getRow(2).getCell(3).value = 'K';
    ws.addRow(['Flow', 'flow', 'm3/h', 'input', 10, 'uint16', '', 0, 'r', '', '', 'cycle', 30, '']);
    ws.addRow(['Bad addr', 'bad1', '', 'holding', 70000, 'int16', '', 0, 'r', '', '', 'cycle', 30, '']);
    ws.addRow(['Bad formula', 'bad2', '', 'holding', 5, 'int16', '', 0, 'r', 'x+*2', '', 'cycle', 30, '']);
    ws.addRow(['Bad type', 'bad3', '', 'register', 5, 'int16', '', 0, 'r', '', '', 'cycle', 30, '']);
    const buf = Buffer.from(await wb.xlsx.writeBuffer());
    const boundary = 'dtb';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="vars.xlsx"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      buf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const imp = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${tpl.id}/slaves/${slave.id}/variables/import`,
      token: owner.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    expect(imp.statusCode, imp.body).toBe(200);
    const r = data<VariableImportResult>(imp);
    expect(r).toMatchObject({ created: 1, updated: 2, failed: 3 });
    expect(r.rows.filter((x) => !x.ok).map((x) => [x.row, x.code])).toEqual([
      [5, 80003],
      [6, 80004],
      [7, 10113],
    ]);
    const detail = data<TemplateDetail>(
      await t.inject({ method: 'GET', url: `/api/data-templates/${tpl.id}`, token: owner.token }),
    );
    const vars = detail.slaves[0]!.variables;
    expect(vars.find((v) => v.tag === 'temp')!.unit).toBe('K');
    expect(vars.map((v) => v.tag)).toContain('flow');
  });

  it('refuses a file that is not xlsx (50002)', async () => {
    const { tpl, slave } = await complete(owner.token, 'Sheet 2');
    const boundary = 'dtc';
    const res = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${tpl.id}/slaves/${slave.id}/variables/import`,
      token: owner.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload:
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="vars.csv"\r\n\r\n` +
        `name,tag\r\n--${boundary}--\r\n`,
    });
    expect(res.statusCode).toBe(415);
    expect(errorOf(res).code).toBe(50002);
  });
});

describe('applying', () => {
  it('refuses incomplete templates (80002, 80001)', async () => {
    const tpl = await makeTemplate(owner.token, 'Empty');
    const put = (id: number) =>
      t.inject({
        method: 'PUT',
        url: `/api/devices/DT-2/data-template`,
        token: owner.token,
        payload: { template_id: id },
      });
    expect(errorOf(await put(tpl.id)).code).toBe(80002);
    await addSlave(owner.token, tpl.id);
    expect(errorOf(await put(tpl.id)).code).toBe(80001);
  });

  it('applies in dtu mode: the device receives the modbus form and its properties include the variables', async () => {
    const { tpl } = await complete(owner.token, 'Pushed');
    const c = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, dev2);
    clients.push(c);
    await c.subscribeAsync(`dev/${dev2.productKey}/${dev2.sn}/down/#`, { qos: 1 });
    await c.publishAsync(up(dev2, 'status'), '{"online":1}', { qos: 1 });
    await eventually(async () => {
      const res = await t.inject({ method: 'GET', url: `/api/devices/${dev2.sn}`, token: owner.token });
      return data<{ online: number }>(res).online === 1 ? true : undefined;
    });
    const got = nextMessage(c, downTopic(dev2.productKey, dev2.sn, 'config'));
    const res = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${tpl.id}/devices`,
      token: owner.token,
      payload: { sns: [dev2.sn] },
    });
    expect(data<TemplateApplyResult[]>(res)).toEqual([{ sn: dev2.sn, ok: true }]);
    const msg = JSON.parse((await got).toString()) as {
      config: {
        modbus: { template_id: number; slaves: { address: number; variables: { tag: string }[] }[] };
      };
    };
    expect(msg.config.modbus.template_id).toBe(tpl.id);
    expect(msg.config.modbus.slaves[0]!.variables.map((v) => v.tag)).toEqual(['temp', 'press']);
    // The device list's property definitions and the device's template.
    const list = await t.inject({
      method: 'GET',
      url: `/api/devices?keyword=${dev2.sn}`,
      token: owner.token,
    });
    const defs = (list.json() as { property_defs: Record<string, PropertyLabel[]> }).property_defs;
    expect(defs[`${dev2.productKey}/${dev2.sn}`]?.map((d) => d.key)).toEqual(['temp', 'press']);
    const info = await t.inject({
      method: 'GET',
      url: `/api/devices/${dev2.sn}/data-template`,
      token: owner.token,
    });
    expect(data(info)).toMatchObject({
      template_id: tpl.id,
      source: 'device',
      properties: [
        { key: 'temp', name: 'Temperature', unit: '°C', datatype: 'number' },
        { key: 'press', name: 'Pressure', unit: 'kPa', datatype: 'number' },
      ],
    });
    // A change of the template reaches the device as a new configuration.
    const changed = nextMessage(c, downTopic(dev2.productKey, dev2.sn, 'config'));
    const slaveId = data<TemplateDetail>(
      await t.inject({ method: 'GET', url: `/api/data-templates/${tpl.id}`, token: owner.token }),
    ).slaves[0]!.id;
    const added = await addVar(owner.token, tpl.id, slaveId, { ...TEMP, tag: 'flow', register_address: 9 });
    expect(added.statusCode, added.body).toBe(200);
    const next = JSON.parse((await changed).toString()) as typeof msg;
    expect(next.config.modbus.slaves[0]!.variables.map((v) => v.tag)).toEqual(['temp', 'press', 'flow']);
    // Applied: deleting is refused.
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/data-templates/${tpl.id}`,
      token: owner.token,
    });
    expect(errorOf(del).code).toBe(80009);
    // Unapply: the modbus group leaves the configuration, and then the template may go.
    const gone = nextMessage(c, downTopic(dev2.productKey, dev2.sn, 'config'));
    const un = await t.inject({
      method: 'DELETE',
      url: `/api/devices/${dev2.sn}/data-template`,
      token: owner.token,
    });
    expect(un.statusCode, un.body).toBe(200);
    const after = JSON.parse((await gone).toString()) as { config: Record<string, unknown> };
    expect(after.config.modbus).toBeUndefined();
    const del2 = await t.inject({
      method: 'DELETE',
      url: `/api/data-templates/${tpl.id}`,
      token: owner.token,
    });
    expect(del2.statusCode, del2.body).toBe(200);
  });

  it("stores what a DTU polling its own slaves reports: the template's tags beside the product's properties", async () => {
    const [d] = await createDevices(t, owner.token, ['DT-POLL'], {
      name: 'Defined DTU',
      properties: [
        {
          key: 'rssi',
          name: 'RSSI',
          name_us: 'RSSI',
          unit: 'dBm',
          datatype: 'number',
          charttype: 'line',
          cycles: 5,
        },
      ],
    });
    const { tpl } = await complete(owner.token, 'Polled by the DTU');
    const c = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d!);
    clients.push(c);
    const report = (params: Record<string, unknown>) =>
      c.publishAsync(up(d!, 'property'), JSON.stringify({ params }), { qos: 1 });
    const latest = async () =>
      Object.fromEntries(
        data<{ key: string; value: unknown }[]>(
          await t.inject({ method: 'GET', url: `/api/devices/${d!.sn}/properties`, token: owner.token }),
        ).map((p) => [p.key, p.value]),
      );
    // Before the template: a tag the product does not define is refused with the whole message.
    await report({ rssi: -70, temp: 21.5 });
    await report({ rssi: -71 });
    await eventually(async () => ((await latest()).rssi === -71 ? true : undefined));
    expect((await latest()).temp).toBeUndefined();
    const applied = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${tpl.id}/devices`,
      token: owner.token,
      payload: { sns: [d!.sn] },
    });
    expect(data<TemplateApplyResult[]>(applied)).toEqual([{ sn: d!.sn, ok: true }]);
    // Applied: the variables are the device's properties (within the ingest's 10 s cache of a device's template).
    await eventually(async () => {
      await report({ rssi: -72, temp: 22.5, press: 101.3 });
      const now = await latest();
      return now.temp === 22.5 && now.press === 101.3 && now.rssi === -72 ? true : undefined;
    }, 20_000);
    // Still refused: a key neither defines, and a wrong type for a tag.
    await report({ rssi: -73, bogus: 1 });
    await report({ temp: 'hot' });
    await report({ rssi: -74 });
    await eventually(async () => ((await latest()).rssi === -74 ? true : undefined));
    const now = await latest();
    expect(now.bogus).toBeUndefined();
    expect(now.temp).toBe(22.5);
    const un = await t.inject({
      method: 'DELETE',
      url: `/api/devices/${d!.sn}/data-template`,
      token: owner.token,
    });
    expect(un.statusCode, un.body).toBe(200);
  });

  it('applies as a product default (owner or admin only)', async () => {
    const { tpl } = await complete(owner.token, 'Default');
    const put = (token: string) =>
      t.inject({
        method: 'PUT',
        url: `/api/products/${dev.productKey}/data-template`,
        token,
        payload: { template_id: tpl.id },
      });
    expect(errorOf(await put(stranger.token)).code).toBe(10107);
    expect((await put(owner.token)).statusCode).toBe(200);
    const info = await t.inject({
      method: 'GET',
      url: `/api/devices/${dev.sn}/data-template`,
      token: owner.token,
    });
    expect(data(info)).toMatchObject({ template_id: tpl.id, source: 'product' });
    const detail = await t.inject({
      method: 'GET',
      url: `/api/data-templates/${tpl.id}`,
      token: owner.token,
    });
    expect(data<TemplateDetail>(detail).products.map((p) => p.product_key)).toEqual([dev.productKey]);
    // While applied, the template stays complete: the last variable of a slave (80001) and the last slave (80002)
    // cannot be removed.
    const slave = data<TemplateDetail>(detail).slaves[0]!;
    const del = (url: string) => t.inject({ method: 'DELETE', url, token: owner.token });
    expect((await del(`/api/data-templates/${tpl.id}/variables/${slave.variables[0]!.id}`)).statusCode).toBe(
      200,
    );
    expect(errorOf(await del(`/api/data-templates/${tpl.id}/variables/${slave.variables[1]!.id}`)).code).toBe(
      80001,
    );
    expect(errorOf(await del(`/api/data-templates/${tpl.id}/slaves/${slave.id}`)).code).toBe(80002);
    expect(errorOf(await del(`/api/data-templates/${tpl.id}`)).code).toBe(80009);
    expect(
      (
        await t.inject({
          method: 'DELETE',
          url: `/api/products/${dev.productKey}/data-template`,
          token: owner.token,
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('product default', () => {
  type ConfigMsg = {
    version: number;
    config: { modbus?: { template_id: number; slaves: { variables: { tag: string }[] }[] } };
  };
  const configOf = async (sn: string) =>
    data<{ expect_config: ConfigMsg['config']; expect_config_version: number }>(
      await t.inject({ method: 'GET', url: `/api/devices/${sn}/config`, token: owner.token }),
    );
  const setDefault = async (productKey: string, templateId: number | null) => {
    const res = await t.inject({
      method: templateId === null ? 'DELETE' : 'PUT',
      url: `/api/products/${productKey}/data-template`,
      token: owner.token,
      ...(templateId === null ? {} : { payload: { template_id: templateId } }),
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('reaches devices without their own template, and new devices of the product', async () => {
    const [pd1, pd2] = await createDevices(t, owner.token, ['PD-1', 'PD-2'], { name: 'Default DTU' });
    const c = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, pd1!);
    clients.push(c);
    await c.subscribeAsync(`dev/${pd1!.productKey}/${pd1!.sn}/down/#`, { qos: 1 });
    await c.publishAsync(up(pd1!, 'status'), '{"online":1}', { qos: 1 });
    await eventually(async () => {
      const res = await t.inject({ method: 'GET', url: `/api/devices/${pd1!.sn}`, token: owner.token });
      return data<{ online: number }>(res).online === 1 ? true : undefined;
    });
    // PD-2 has a template of its own: the product's default does not touch it.
    const { tpl: own } = await complete(owner.token, 'Own');
    const put = await t.inject({
      method: 'PUT',
      url: `/api/devices/${pd2!.sn}/data-template`,
      token: owner.token,
      payload: { template_id: own.id },
    });
    expect(put.statusCode, put.body).toBe(200);
    const pd2Before = await configOf(pd2!.sn);

    // Set: the online device is sent the default's DTU form at once.
    const { tpl, slave } = await complete(owner.token, 'Product default');
    let got = nextMessage(c, downTopic(pd1!.productKey, pd1!.sn, 'config'));
    await setDefault(pd1!.productKey, tpl.id);
    let msg = JSON.parse((await got).toString()) as ConfigMsg;
    expect(msg.config.modbus?.template_id).toBe(tpl.id);
    expect(msg.config.modbus?.slaves[0]!.variables.map((v) => v.tag)).toEqual(['temp', 'press']);
    expect(await configOf(pd2!.sn)).toEqual(pd2Before);

    // An edit of the default reaches it too.
    got = nextMessage(c, downTopic(pd1!.productKey, pd1!.sn, 'config'));
    const added = await addVar(owner.token, tpl.id, slave.id, { ...TEMP, tag: 'level', register_address: 7 });
    expect(added.statusCode, added.body).toBe(200);
    msg = JSON.parse((await got).toString()) as ConfigMsg;
    expect(msg.config.modbus?.slaves[0]!.variables.map((v) => v.tag)).toEqual(['temp', 'press', 'level']);

    // A device created later starts with it, its version ahead of what any device runs.
    await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: owner.token,
      payload: { product_key: pd1!.productKey, sn: ['PD-3'] },
    });
    const pd3 = await configOf('PD-3');
    expect(pd3.expect_config.modbus?.template_id).toBe(tpl.id);
    expect(pd3.expect_config_version).toBe(1);

    // Changed to a platform-mode default: the modbus group leaves the configuration, and the platform polls.
    const { tpl: polled } = await complete(owner.token, 'Polled default');
    const mode = await t.inject({
      method: 'PUT',
      url: `/api/data-templates/${polled.id}`,
      token: owner.token,
      payload: { name: 'Polled default', type: 'modbus_rtu', remark: '', collect_mode: 'platform' },
    });
    expect(mode.statusCode, mode.body).toBe(200);
    got = nextMessage(c, downTopic(pd1!.productKey, pd1!.sn, 'config'));
    const raw = nextMessage(c, downTopic(pd1!.productKey, pd1!.sn, 'raw'));
    await setDefault(pd1!.productKey, polled.id);
    msg = JSON.parse((await got).toString()) as ConfigMsg;
    expect(msg.config.modbus).toBeUndefined();
    // A Modbus read request to slave 1 (function code 3: holding registers).
    const frame = await raw;
    expect([frame[0], frame[1]]).toEqual([1, 3]);

    // Back to dtu mode, then removed: the group comes and goes again; PD-2 is never touched.
    got = nextMessage(c, downTopic(pd1!.productKey, pd1!.sn, 'config'));
    await setDefault(pd1!.productKey, tpl.id);
    expect((JSON.parse((await got).toString()) as ConfigMsg).config.modbus?.template_id).toBe(tpl.id);
    got = nextMessage(c, downTopic(pd1!.productKey, pd1!.sn, 'config'));
    await setDefault(pd1!.productKey, null);
    expect((JSON.parse((await got).toString()) as ConfigMsg).config.modbus).toBeUndefined();
    expect((await configOf('PD-3')).expect_config.modbus).toBeUndefined();
    expect(await configOf(pd2!.sn)).toEqual(pd2Before);
  });
});

describe('ownership', () => {
  it('another user cannot read, edit, copy or apply a template; admins can read', async () => {
    const { tpl } = await complete(owner.token, 'Private');
    for (const [method, url, payload] of [
      ['GET', `/api/data-templates/${tpl.id}`, undefined],
      ['PUT', `/api/data-templates/${tpl.id}`, { name: 'x' }],
      ['DELETE', `/api/data-templates/${tpl.id}`, undefined],
      ['POST', `/api/data-templates/${tpl.id}/copy`, {}],
      ['POST', `/api/data-templates/${tpl.id}/slaves`, { name: 's', address: 3 }],
      ['POST', `/api/data-templates/${tpl.id}/devices`, { sns: ['DT-1'] }],
    ] as const) {
      const res = await t.inject({ method, url, token: stranger.token, ...(payload ? { payload } : {}) });
      expect(errorOf(res).code, `${method} ${url}`).toBe(10107);
    }
    const list = await t.inject({
      method: 'GET',
      url: '/api/data-templates?keyword=Private',
      token: stranger.token,
    });
    expect((list.json() as { total: number }).total).toBe(0);
    const asAdmin = await t.inject({ method: 'GET', url: `/api/data-templates/${tpl.id}`, token: admin });
    expect(asAdmin.statusCode).toBe(200);
  });

  it('a view-share cannot apply; a control-share can apply its own template', async () => {
    const mine = await complete(viewer.token, 'Viewer tpl');
    const res = await t.inject({
      method: 'PUT',
      url: '/api/devices/DT-1/data-template',
      token: viewer.token,
      payload: { template_id: mine.tpl.id },
    });
    expect(errorOf(res).code).toBe(10108);
    const ctl = await complete(controller.token, 'Controller tpl');
    const ok = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${ctl.tpl.id}/devices`,
      token: controller.token,
      payload: { sns: ['DT-1', 'DT-2'] },
    });
    expect(data<TemplateApplyResult[]>(ok)).toEqual([
      { sn: 'DT-1', ok: true },
      { sn: 'DT-2', ok: false, code: 10117, message: expect.any(String) },
    ]);
    const un = await t.inject({
      method: 'DELETE',
      url: '/api/devices/DT-1/data-template',
      token: viewer.token,
    });
    expect(errorOf(un).code).toBe(10108);
    expect(
      (await t.inject({ method: 'DELETE', url: '/api/devices/DT-1/data-template', token: controller.token }))
        .statusCode,
    ).toBe(200);
  });
});
