import type { ForwardKind, ForwardRuleItem } from '@cellhub/contract/forwarding';

export const KIND_KEYS: Record<ForwardKind, string> = {
  property: 'forward.kind.property',
  event: 'forward.kind.event',
  online: 'forward.kind.online',
  offline: 'forward.kind.offline',
  raw: 'forward.kind.raw',
};

export const STATUS_COLORS: Record<ForwardRuleItem['status'], string> = {
  running: 'green',
  paused: 'orangered',
  disabled: 'gray',
};

/** One line for a target: `POST https://…` or `mqtt://… → topic`. */
export function targetText(target: ForwardRuleItem['target']): string {
  return target.kind === 'http' ? `${target.method} ${target.url}` : `${target.url} → ${target.topic}`;
}
