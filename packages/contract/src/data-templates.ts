/**
 * Data templates (seed section 3 "Data template"; issue 16): Modbus slaves behind a DTU and the variables read from
 * them. A template belongs to its creator (admins see all); it is applied to devices or as a product's default, and
 * its variables become the device's properties (key = tag). The value checks below run in the browser's form and in
 * the server, so both refuse the same input with the same codes (80001-80006, 10113).
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { checkFormula } from './modbus/formula';
import {
  BYTE_ORDERS,
  type ByteOrder,
  DATA_FORMATS,
  type DataFormat,
  REGISTER_TYPES,
  type RegisterType,
} from './modbus/types';
import { PROPERTY_KEY_RULE, SN_RULE } from './protocol';
import { text } from './text';

export const TEMPLATE_TYPES = ['modbus_rtu', 'modbus_tcp'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];
/** `dtu`: the DTU polls (the template is pushed in its configuration); `platform`: the server polls through it. */
export const COLLECT_MODES = ['dtu', 'platform'] as const;
export type CollectMode = (typeof COLLECT_MODES)[number];
export const SERIAL_PORTS = ['rs232', 'rs485'] as const;
export type SerialPort = (typeof SERIAL_PORTS)[number];
// The Modbus vocabulary (register types, data formats, byte orders) is the codec's: one list for both.
export { BYTE_ORDERS, DATA_FORMATS, REGISTER_TYPES };
export type { ByteOrder, DataFormat, RegisterType };
/** r: read-only, w: write-only, rw: read-write. */
export const VARIABLE_ACCESS = ['r', 'w', 'rw'] as const;
export type VariableAccess = (typeof VARIABLE_ACCESS)[number];
export const REPORT_METHODS = ['cycle', 'change'] as const;
export type ReportMethod = (typeof REPORT_METHODS)[number];

export const SLAVE_ADDRESS_MIN = 1;
export const SLAVE_ADDRESS_MAX = 247;
export const REGISTER_ADDRESS_MIN = 1;
export const REGISTER_ADDRESS_MAX = 65535;
export const DECIMALS_MAX = 4;
export const FUNCTION_CODE_MIN = 1;
/** 1-12 as the seed's form offers, and 15/16 (write multiple coils / registers) for values wider than one. */
export const FUNCTION_CODE_MAX = 16;
export const SAMPLING_CYCLE_MAX = 86_400;
export const FORMULA_MAX = 200;
export const SLAVES_MAX = 32;
export const VARIABLES_MAX = 500;

/** Registers a value of each format spans (a coil or discrete input is one bit). */
export const FORMAT_REGISTERS: Record<DataFormat, number> = {
  bool: 1,
  int16: 1,
  uint16: 1,
  float16: 1,
  int32: 2,
  uint32: 2,
  float32: 2,
  double: 4,
};

/** The byte orders a format may use. */
export function byteOrdersFor(format: DataFormat): ByteOrder[] {
  if (format === 'bool') return ['AB'];
  return FORMAT_REGISTERS[format] === 1 ? ['AB', 'BA'] : ['ABCD', 'CDAB', 'BADC', 'DCBA'];
}

/** The read function code of a register type (1 coils, 2 discrete inputs, 3 holding registers, 4 input registers). */
export const READ_FUNCTION_CODE: Record<RegisterType, number> = {
  coil: 1,
  discrete_input: 2,
  holding: 3,
  input: 4,
};

/** Whether a register type can be written (coils and holding registers). */
export const isWritableRegister = (t: RegisterType) => t === 'coil' || t === 'holding';

/** The function codes that fit a register type: its read code and, when writable, its write codes. */
export const FUNCTION_CODES_FOR: Record<RegisterType, number[]> = {
  coil: [1, 5, 15],
  discrete_input: [2],
  holding: [3, 6, 16],
  input: [4],
};

/** The formats a register type can hold: one bit is a bool; registers hold any format. */
export const formatsFor = (t: RegisterType): DataFormat[] =>
  t === 'coil' || t === 'discrete_input' ? ['bool'] : [...DATA_FORMATS];

/** Why a variable is refused: the code (80003 address, 80004 formula, 80005 format), the field and a reason. */
export interface VariableProblem {
  code: 80003 | 80004 | 80005;
  field: string;
  reason: string;
}

/** The fields checkVariable reads (a form's values or a request body). */
export interface VariableFields {
  register_type: RegisterType;
  register_address: number;
  data_format: DataFormat;
  byte_order?: ByteOrder | undefined;
  access: VariableAccess;
  capture_formula: string;
  control_formula: string;
  function_code?: number | undefined;
}

/**
 * The rules a variable must follow, shared by the console's form and the server: the register range 1-65535 for
 * every register the value spans (80003), a format its register type can hold, a byte order for the format's
 * width, a function code of the register type and no writing to read-only registers (80005), formulas the
 * formula checker accepts (80004; its reason and position in `reason`).
 */
export function checkVariable(v: VariableFields): VariableProblem[] {
  const out: VariableProblem[] = [];
  const span =
    v.register_type === 'coil' || v.register_type === 'discrete_input' ? 1 : FORMAT_REGISTERS[v.data_format];
  if (
    !Number.isInteger(v.register_address) ||
    v.register_address < REGISTER_ADDRESS_MIN ||
    v.register_address + span - 1 > REGISTER_ADDRESS_MAX
  )
    out.push({ code: 80003, field: 'register_address', reason: 'register_range' });
  if (!formatsFor(v.register_type).includes(v.data_format))
    out.push({ code: 80005, field: 'data_format', reason: 'format_register_type' });
  else if (v.byte_order !== undefined && !byteOrdersFor(v.data_format).includes(v.byte_order))
    out.push({ code: 80005, field: 'byte_order', reason: 'byte_order_format' });
  if (v.access !== 'r' && !isWritableRegister(v.register_type))
    out.push({ code: 80005, field: 'access', reason: 'register_read_only' });
  if (v.function_code !== undefined && !FUNCTION_CODES_FOR[v.register_type].includes(v.function_code))
    out.push({ code: 80005, field: 'function_code', reason: 'function_code_register_type' });
  for (const field of ['capture_formula', 'control_formula'] as const) {
    const src = v[field];
    if (src.trim() === '') continue;
    const r = checkFormula(src);
    if (!r.ok) out.push({ code: 80004, field, reason: `${r.reason} (at ${r.index})` });
  }
  return out;
}

/** The stored byte order and function code when a body leaves them out. */
export function variableDefaults(v: Pick<VariableFields, 'register_type' | 'data_format' | 'access'>): {
  byte_order: ByteOrder;
  function_code: number;
} {
  const order = byteOrdersFor(v.data_format)[0] ?? 'AB';
  const fc =
    v.access === 'w'
      ? v.register_type === 'coil'
        ? 5
        : FORMAT_REGISTERS[v.data_format] > 1
          ? 16
          : 6
      : READ_FUNCTION_CODE[v.register_type];
  return { byte_order: order, function_code: fc };
}

// --- the API ------------------------------------------------------------------------------------------------------

const id = z.coerce.number().int().positive().max(2_147_483_647);
export const templateIdParams = z.object({ id });
export const slaveParams = templateIdParams.extend({ slaveId: id });
export const variableParams = templateIdParams.extend({ varId: id });

const name = text().trim().min(1).max(64);

export const templateBody = z.object({
  name,
  type: z.enum(TEMPLATE_TYPES).default('modbus_rtu'),
  remark: text().trim().max(200).default(''),
  collect_mode: z.enum(COLLECT_MODES).default('dtu'),
});
export type TemplateBody = z.input<typeof templateBody>;
export const templateUpdateBody = templateBody.partial();
export type TemplateUpdateBody = z.input<typeof templateUpdateBody>;

export const templateCopyBody = z.object({ name: name.optional() });

export const templateListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
  type: z.enum(TEMPLATE_TYPES).optional(),
});
export type TemplateListQuery = z.infer<typeof templateListQuery>;

/** Addresses are checked by the service (the seed's 80003 for registers), so the schema only keeps them integers. */
const anyInt = z.number().int().min(-2_147_483_648).max(2_147_483_647);

export const slaveBody = z.object({
  name,
  address: z.number().int().min(SLAVE_ADDRESS_MIN).max(SLAVE_ADDRESS_MAX),
  serial_port: z.enum(SERIAL_PORTS).default('rs485'),
  position: z.number().int().min(0).max(10_000).optional(),
});
export type SlaveBody = z.input<typeof slaveBody>;
export const slaveUpdateBody = slaveBody.partial();

export const variableBody = z.object({
  name,
  tag: text().regex(PROPERTY_KEY_RULE, 'property_key_rule'),
  unit: text().trim().max(16).default(''),
  register_type: z.enum(REGISTER_TYPES),
  register_address: anyInt,
  data_format: z.enum(DATA_FORMATS),
  byte_order: z.enum(BYTE_ORDERS).optional(),
  decimals: z.number().int().min(0).max(DECIMALS_MAX).default(0),
  access: z.enum(VARIABLE_ACCESS).default('r'),
  capture_formula: text().max(FORMULA_MAX).default(''),
  control_formula: text().max(FORMULA_MAX).default(''),
  report_method: z.enum(REPORT_METHODS).default('cycle'),
  sampling_cycle_s: z.number().int().min(1).max(SAMPLING_CYCLE_MAX).default(60),
  function_code: z.number().int().min(FUNCTION_CODE_MIN).max(FUNCTION_CODE_MAX).optional(),
  position: z.number().int().min(0).max(10_000).optional(),
});
export type VariableBody = z.input<typeof variableBody>;
export type VariableInput = z.output<typeof variableBody>;
/** A variable may move to another slave of the same template. */
export const variableUpdateBody = variableBody.partial().extend({ slave_id: id.optional() });
export type VariableUpdateBody = z.input<typeof variableUpdateBody>;

const iso = text();

export const variableItem = z.object({
  id: z.number().int(),
  slave_id: z.number().int(),
  name: text(),
  tag: text(),
  unit: text(),
  register_type: z.enum(REGISTER_TYPES),
  register_address: z.number().int(),
  data_format: z.enum(DATA_FORMATS),
  byte_order: z.enum(BYTE_ORDERS),
  decimals: z.number().int(),
  access: z.enum(VARIABLE_ACCESS),
  capture_formula: text(),
  control_formula: text(),
  report_method: z.enum(REPORT_METHODS),
  sampling_cycle_s: z.number().int(),
  function_code: z.number().int(),
  position: z.number().int(),
});
export type VariableItem = z.infer<typeof variableItem>;

export const slaveItem = z.object({
  id: z.number().int(),
  template_id: z.number().int(),
  name: text(),
  address: z.number().int(),
  serial_port: z.enum(SERIAL_PORTS),
  position: z.number().int(),
  variables: z.array(variableItem),
});
export type SlaveItem = z.infer<typeof slaveItem>;

export const templateItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  owner: text(),
  name: text(),
  type: z.enum(TEMPLATE_TYPES),
  remark: text(),
  collect_mode: z.enum(COLLECT_MODES),
  slave_count: z.number().int(),
  variable_count: z.number().int(),
  device_count: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type TemplateItem = z.infer<typeof templateItem>;

export const templateDetail = templateItem.extend({
  slaves: z.array(slaveItem),
  /** Products that use the template as their default. */
  products: z.array(z.object({ product_key: text(), name: text() })),
});
export type TemplateDetail = z.infer<typeof templateDetail>;

/** Apply to several devices at once; each SN gets its own result. */
export const templateApplyBody = z.object({
  sns: z.array(text().regex(SN_RULE, 'sn_rule')).min(1).max(500),
});
export type TemplateApplyBody = z.input<typeof templateApplyBody>;
export const templateApplyResult = z.object({
  sn: text(),
  ok: z.boolean(),
  code: z.number().int().optional(),
  message: text().optional(),
});
export type TemplateApplyResult = z.infer<typeof templateApplyResult>;

export const deviceTemplateBody = z.object({ template_id: id });
export const productTemplateBody = z.object({ template_id: id });

export const templateDeviceItem = z.object({
  sn: text(),
  name: text(),
  product_key: text(),
  online: z.number().int(),
  appliedat: iso,
});
export type TemplateDeviceItem = z.infer<typeof templateDeviceItem>;
export const templateDevicesQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });

/** A device's template: its own, else its product's default (`source` says which); null when none. */
export const deviceTemplateInfo = z
  .object({
    template_id: z.number().int(),
    name: text(),
    collect_mode: z.enum(COLLECT_MODES),
    source: z.enum(['device', 'product']),
    /** The variables as the device's properties: key = tag, name, unit; `bool` for bool-format variables. */
    properties: z.array(
      z.object({
        key: text(),
        name: text(),
        name_us: text(),
        unit: text(),
        datatype: z.enum(['number', 'bool']),
      }),
    ),
  })
  .nullable();
export type DeviceTemplateInfo = z.infer<typeof deviceTemplateInfo>;

/** One row of an Excel import: its line number in the sheet and whether it was stored, or the code and why not. */
export const variableImportRow = z.object({
  row: z.number().int(),
  tag: text(),
  ok: z.boolean(),
  action: z.enum(['created', 'updated']).optional(),
  code: z.number().int().optional(),
  message: text().optional(),
});
export type VariableImportRow = z.infer<typeof variableImportRow>;
export const variableImportResult = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  rows: z.array(variableImportRow),
});
export type VariableImportResult = z.infer<typeof variableImportResult>;

/** The sheet's columns, in order (the header row holds these keys; the export writes them, the import reads them). */
export const VARIABLE_SHEET_COLUMNS = [
  'name',
  'tag',
  'unit',
  'register_type',
  'register_address',
  'data_format',
  'byte_order',
  'decimals',
  'access',
  'capture_formula',
  'control_formula',
  'report_method',
  'sampling_cycle_s',
  'function_code',
] as const;
