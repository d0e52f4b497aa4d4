/**
 * Platform polling of Modbus slaves through a DTU in transparent mode (issue 16; docs/modbus-polling.md): the status
 * of each template variable on a device, a test read that shows the frames both ways, and writes.
 */
import { z } from 'zod';
import { PROPERTY_KEY_RULE, SN_RULE } from './protocol';
import { text } from './text';

export const modbusVariableParams = z.object({
  sn: text().regex(SN_RULE, 'sn_rule'),
  tag: text().regex(PROPERTY_KEY_RULE, 'property_key_rule'),
});

/** One variable of the device's template and how reading it went (counters since the template was applied). */
export const modbusVariableStatus = z.object({
  tag: text(),
  name: text(),
  unit: text(),
  slave_address: z.number().int(),
  register_type: z.enum(['coil', 'discrete_input', 'holding', 'input']),
  register_address: z.number().int(),
  data_format: text(),
  access: z.enum(['r', 'w', 'rw']),
  reads: z.number().int(),
  timeouts: z.number().int(),
  exceptions: z.number().int(),
  crc_errors: z.number().int(),
  invalid: z.number().int(),
  last_value: z.number().nullable(),
  last_read_at: text().nullable(),
  last_error: text(),
  last_error_at: text().nullable(),
});
export type ModbusVariableStatus = z.infer<typeof modbusVariableStatus>;

export const modbusStatusList = z.object({
  template_id: z.number().int(),
  collect_mode: z.enum(['dtu', 'platform']),
  variables: z.array(modbusVariableStatus),
});
export type ModbusStatusList = z.infer<typeof modbusStatusList>;

export const MODBUS_OUTCOMES = ['response', 'exception', 'crc', 'invalid', 'timeout'] as const;

/**
 * One exchange on the serial bus: the request frame and every byte that came back (hex), how it ended, and for a
 * read the raw and the decoded value. `code` is 0 for a good answer, else 81001 (timeout), 81002 (exception),
 * 81003 (invalid answer or CRC error).
 */
export const modbusExchange = z.object({
  outcome: z.enum(MODBUS_OUTCOMES),
  code: z.number().int(),
  message: text(),
  request: text(),
  response: text(),
  function_code: z.number().int(),
  exception_code: z.number().int().nullable(),
  raw: z.union([z.number(), z.boolean()]).nullable(),
  value: z.union([z.number(), z.boolean()]).nullable(),
  elapsed_ms: z.number(),
});
export type ModbusExchange = z.infer<typeof modbusExchange>;

/** The value to write, before the control formula. */
export const modbusWriteBody = z.object({ value: z.union([z.number().finite(), z.boolean()]) });
export type ModbusWriteBody = z.infer<typeof modbusWriteBody>;
