/**
 * The create form's flat values -> the contract's create body (and the preview body of the summary step). The form
 * keeps every step's fields in one store; the targets' serial numbers (an uploaded file, hand-picked devices) live
 * outside it.
 */
import type { OtaTargets, OtaTaskCreateBody, OtaTaskPreviewBody } from '@cellhub/contract/ota';

export type TargetType = OtaTargets['type'];

export interface CreateFormValues {
  name: string;
  description?: string;
  product_key: string;
  version_id: number;
  target_type: TargetType;
  filter_keyword?: string;
  filter_online?: '0' | '1';
  filter_fw_version?: string;
  wave_type: 'count' | 'percent';
  wave_size: number;
  wave_pause_s: number;
  max_concurrent: number;
  failure_enabled: boolean;
  failure_threshold_type: 'percent' | 'count';
  failure_threshold?: number;
  retries: number;
  retry_backoff_s: number;
  timeout_s: number;
  skip_same_version: boolean;
  /** Local time as the date picker gives it (`YYYY-MM-DD HH:mm:ss`). */
  plan_time?: string;
  window_end?: string;
}

/** The contract's policy defaults, as the form starts. */
export const FORM_DEFAULTS: Partial<CreateFormValues> = {
  target_type: 'all',
  wave_type: 'percent',
  wave_size: 100,
  wave_pause_s: 0,
  max_concurrent: 1000,
  failure_enabled: true,
  failure_threshold_type: 'percent',
  failure_threshold: 20,
  retries: 2,
  retry_backoff_s: 60,
  timeout_s: 1800,
  skip_same_version: true,
};

/** `YYYY-MM-DD HH:mm:ss` in the browser's zone -> ISO 8601 with offset; empty -> null. */
export function localToIso(v: string | undefined): string | null {
  if (!v) return null;
  const d = new Date(v.trim().replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function buildTargets(v: CreateFormValues, listSns: string[], picked: string[]): OtaTargets {
  switch (v.target_type) {
    case 'all':
      return { type: 'all' };
    case 'filter': {
      const keyword = v.filter_keyword?.trim();
      const fw = v.filter_fw_version?.trim();
      return {
        type: 'filter',
        ...(keyword ? { keyword } : {}),
        ...(v.filter_online === '1' || v.filter_online === '0'
          ? { online: Number(v.filter_online) as 0 | 1 }
          : {}),
        ...(fw ? { fw_version: fw } : {}),
      };
    }
    case 'list':
      return { type: 'list', sns: listSns };
    case 'pick':
      return { type: 'pick', sns: picked };
  }
}

export function buildCreateBody(v: CreateFormValues, listSns: string[], picked: string[]): OtaTaskCreateBody {
  return {
    name: v.name.trim(),
    description: v.description?.trim() ?? '',
    product_key: v.product_key,
    version_id: v.version_id,
    targets: buildTargets(v, listSns, picked),
    policy: {
      wave_type: v.wave_type,
      wave_size: v.wave_size,
      wave_pause_s: v.wave_pause_s,
      max_concurrent: v.max_concurrent,
      failure_threshold_type: v.failure_threshold_type,
      failure_threshold: v.failure_enabled ? (v.failure_threshold ?? null) : null,
      retries: v.retries,
      retry_backoff_s: v.retry_backoff_s,
      timeout_s: v.timeout_s,
      skip_same_version: v.skip_same_version,
    },
    plan_time: localToIso(v.plan_time),
    window_end: localToIso(v.window_end),
  };
}

export function previewBody(body: OtaTaskCreateBody): OtaTaskPreviewBody {
  return {
    product_key: body.product_key,
    version_id: body.version_id,
    targets: body.targets,
    skip_same_version: body.policy?.skip_same_version ?? true,
  };
}
