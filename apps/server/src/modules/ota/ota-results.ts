/**
 * The result of an upgrade log row in its three forms: the code and params the console words in the user's
 * language (contract OTA_RESULT_CODES), and the English `result` text API callers have always read.
 */
import type { OtaResultCode, OtaResultParams } from '@cellhub/contract/ota';

export interface OtaResult {
  result: string;
  resultCode: OtaResultCode;
  resultParams: OtaResultParams;
}

/** What a device's status means when it sends no words with it (seed section 4). */
export const STATUS_TEXT: Record<number, string> = {
  0: 'waiting',
  1: 'download succeeded',
  2: 'download failed',
  3: 'update failed',
  4: 'update succeeded',
  5: 'accepted',
  6: 'refused',
};

const TEXT: Record<Exclude<OtaResultCode, ''>, (p: OtaResultParams) => string> = {
  device_status: (p) => STATUS_TEXT[Number(p.status)] ?? '',
  device_message: (p) => String(p.message ?? ''),
  reported_version: (p) => `reported fw_version ${p.version}`,
  already_on_version: (p) => `already on version ${p.version}`,
  offline_pending: () => 'offline: sent when it connects',
  sim_refused: (p) => `SIM: ${p.reason}`,
  timeout: (p) => `timeout after ${p.seconds} s`,
  window_ended: () => 'window ended',
  task_cancelled: () => 'task cancelled',
};

/** A result by its code; a device's own words are kept in `result` only (they can be long). */
export function otaResult(code: OtaResultCode, params: OtaResultParams = {}): OtaResult {
  if (code === '') return { result: '', resultCode: '', resultParams: {} };
  const result = TEXT[code](params).slice(0, 512);
  const { message: _kept, ...rest } = params;
  return { result, resultCode: code, resultParams: code === 'device_message' ? {} : rest };
}

export const NO_RESULT = otaResult('');
