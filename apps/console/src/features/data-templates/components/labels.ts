import type { VariableAccess } from '@cellhub/contract/data-templates';

export const ACCESS_LABEL_KEYS: Record<VariableAccess, string> = {
  r: 'dt.access.r',
  w: 'dt.access.w',
  rw: 'dt.access.rw',
};
