import { asc, eq } from 'drizzle-orm';
import {
  isBitType,
  ModbusError,
  planReads,
  planWrite,
  readBlockValues,
  toHex,
} from '@cellhub/contract/modbus';
import type {
  ModbusExchange,
  ModbusStatusList,
  ModbusVariableStatus,
} from '@cellhub/contract/modbus-polling';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import {
  dataTemplates,
  dataTemplateSlaves,
  dataTemplateVariables,
} from '../data-templates/data-templates.table';
import { accessibleDevice } from '../devices/device-access';
import type { DeviceRef } from '../devices/device-ref';
import {
  type Exchange,
  loadTemplatePlans,
  ModbusPoller,
  type PolledVariable,
  templateOfDevice,
} from './modbus-poller';
import { modbusVariableStatus } from './modbus-polling.table';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

async function templateOf(deps: Pick<Deps, 'db'>, deviceId: number) {
  const templateId = await templateOfDevice(deps.db, deviceId);
  if (templateId === undefined) throw new AppError(81004);
  return templateId;
}

/** The device's template variables with their read counters, last value and last error. View right. */
export async function variableStatus(
  deps: Deps,
  poller: ModbusPoller,
  actor: Actor,
  sn: string,
): Promise<ModbusStatusList> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const templateId = await templateOf(deps, device.id);
  const [template] = await deps.db
    .select({ collectMode: dataTemplates.collectMode })
    .from(dataTemplates)
    .where(eq(dataTemplates.id, templateId));
  const vars = await deps.db
    .select({ v: dataTemplateVariables, slave: dataTemplateSlaves.address })
    .from(dataTemplateVariables)
    .innerJoin(dataTemplateSlaves, eq(dataTemplateSlaves.id, dataTemplateVariables.slaveId))
    .where(eq(dataTemplateVariables.templateId, templateId))
    .orderBy(
      asc(dataTemplateSlaves.position),
      asc(dataTemplateSlaves.id),
      asc(dataTemplateVariables.position),
      asc(dataTemplateVariables.id),
    );
  const rows = await deps.db
    .select()
    .from(modbusVariableStatus)
    .where(eq(modbusVariableStatus.deviceId, device.id));
  const stored = new Map(rows.map((r) => [r.tag, r]));
  const pending = poller.pending(device.id);
  const variables: ModbusVariableStatus[] = vars.map(({ v, slave }) => {
    const s = stored.get(v.tag);
    const p = pending.get(v.tag);
    const lastErrorAt = p?.lastErrorAt ?? s?.lastErrorAt ?? null;
    return {
      tag: v.tag,
      name: v.name,
      unit: v.unit,
      slave_address: slave,
      register_type: v.registerType,
      register_address: v.registerAddress,
      data_format: v.dataFormat,
      access: v.access,
      reads: (s?.reads ?? 0) + (p?.reads ?? 0),
      timeouts: (s?.timeouts ?? 0) + (p?.timeouts ?? 0),
      exceptions: (s?.exceptions ?? 0) + (p?.exceptions ?? 0),
      crc_errors: (s?.crcErrors ?? 0) + (p?.crcErrors ?? 0),
      invalid: (s?.invalid ?? 0) + (p?.invalid ?? 0),
      last_value: p?.lastValue ?? s?.lastValue ?? null,
      last_read_at: iso(p?.lastReadAt ?? s?.lastReadAt),
      last_error: p?.lastError ?? s?.lastError ?? '',
      last_error_at: iso(lastErrorAt),
    };
  });
  return { template_id: templateId, collect_mode: template?.collectMode ?? 'dtu', variables };
}

async function variableOf(deps: Deps, actor: Actor, sn: string) {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const templateId = await templateOf(deps, device.id);
  const plan = (await loadTemplatePlans(deps.db, [templateId])).get(templateId);
  if (!plan) throw new AppError(81004);
  const ref: DeviceRef = { id: device.id, sn: device.sn, productKey: device.productKey, uid: device.uid };
  return { device, ref, templateId, plan };
}

function findVariable(plan: { variables: Map<string, PolledVariable> }, tag: string): PolledVariable {
  const v = plan.variables.get(tag);
  if (!v)
    throw new AppError(10113, undefined, `the template has no variable "${tag}"`, [
      { field: 'tag', message: 'unknown' },
    ]);
  return v;
}

const CODES: Record<Exchange['outcome'], number> = {
  response: 0,
  exception: 81002,
  crc: 81003,
  invalid: 81003,
  timeout: 81001,
  offline: 20401,
};

function describe(e: Exchange, started: number): ModbusExchange {
  if (e.outcome === 'offline') throw new AppError(20401);
  const message =
    e.outcome === 'response'
      ? ''
      : e.outcome === 'exception'
        ? `exception ${e.code}: ${e.name}`
        : e.outcome === 'timeout'
          ? 'the slave did not answer in time'
          : e.message;
  const received = new Uint8Array(e.received.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of e.received) {
    received.set(b, at);
    at += b.length;
  }
  return {
    outcome: e.outcome,
    code: CODES[e.outcome],
    message,
    request: toHex(e.request),
    response: toHex(received),
    function_code: e.request[1] ?? 0,
    exception_code: e.outcome === 'exception' ? e.code : null,
    raw: null,
    value: null,
    elapsed_ms: Date.now() - started,
  };
}

/** Reads one variable now, outside the schedule, and shows the frames both ways. Control right (it uses the bus). */
export async function testRead(
  deps: Deps,
  poller: ModbusPoller,
  actor: Actor,
  sn: string,
  tag: string,
): Promise<ModbusExchange> {
  const { device, ref, templateId, plan } = await variableOf(deps, actor, sn);
  const v = findVariable(plan, tag);
  if (!deps.link.online(sn, device.online)) throw new AppError(20401);
  const [block] = planReads([
    { key: v.tag, unit: v.unit, type: v.type, address: v.address, format: v.format, order: v.order },
  ]);
  if (!block) throw new AppError(80003);
  const started = Date.now();
  const e = await poller.exchange(ref, templateId, block.request);
  const out = describe(e, started);
  const at = deps.now();
  if (e.outcome !== 'response') {
    poller.count(device.id, v.tag, e, at);
    return out;
  }
  const [r] = readBlockValues(block, e.response);
  if (!r || 'error' in r) {
    return { ...out, outcome: 'invalid', code: 81003, message: r && 'error' in r ? r.error : 'no value' };
  }
  out.raw = r.value;
  const decoded = ModbusPoller.decode(v, r.value);
  if ('error' in decoded) return { ...out, outcome: 'invalid', code: 81003, message: decoded.error };
  out.value = decoded.value as number | boolean;
  poller.recordRead(device.id, v.tag, typeof out.value === 'boolean' ? Number(out.value) : out.value, at);
  return out;
}

/**
 * Writes a value to a read-write (or write-only) variable: control formula, FC 5/6/15/16 from the register type and
 * width, the slave's answer checked. Owners and control-shares only; audited whatever the outcome.
 */
export async function writeVariable(
  deps: Deps,
  poller: ModbusPoller,
  actor: Actor,
  sn: string,
  tag: string,
  value: number | boolean,
): Promise<ModbusExchange> {
  const { device, ref, templateId, plan } = await variableOf(deps, actor, sn);
  const v = findVariable(plan, tag);
  if (v.access === 'r' || v.type === 'discrete_input' || v.type === 'input') throw new AppError(80007);
  let raw: number | boolean;
  if (isBitType(v.type) || v.format === 'bool') {
    raw = typeof value === 'boolean' ? value : value !== 0;
  } else {
    const n = typeof value === 'boolean' ? Number(value) : value;
    const ctl = ModbusPoller.controlOf(v);
    if (!ctl.ok) throw new AppError(80004, undefined, ctl.reason);
    raw = ctl.control ? ctl.control.evaluate(n) : n;
    if (!Number.isFinite(raw)) throw new AppError(80008, undefined, `the control formula gave ${raw}`);
    // Integer formats take the nearest integer (what encodeValue sends): (14.5 - 2) / 0.1 is 124.99999999999999.
    if (v.format !== 'float16' && v.format !== 'float32' && v.format !== 'double') raw = Math.round(raw);
  }
  let request;
  try {
    request = planWrite(
      { unit: v.unit, type: v.type, address: v.address, format: v.format, order: v.order },
      raw,
    );
  } catch (err) {
    if (err instanceof ModbusError) throw new AppError(err.code, undefined, err.message);
    throw err;
  }
  if (!deps.link.online(sn, device.online)) throw new AppError(20401);
  const started = Date.now();
  const e = await poller.exchange(ref, templateId, request);
  const out = { ...describe(e, started), raw, value };
  await writeAudit(deps.db, {
    uid: actor.uid,
    action: 'modbus_write',
    target: sn,
    ip: actor.ip,
    detail: { tag, value, raw, outcome: out.outcome, request: out.request, response: out.response },
  });
  if (e.outcome !== 'response') {
    poller.count(device.id, v.tag, e, deps.now());
    throw new AppError(out.code, undefined, out.message, out);
  }
  return out;
}
