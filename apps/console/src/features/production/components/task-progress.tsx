import type { TaskProgress } from '@cellhub/contract/production';
import { Progress, Space, Tooltip } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';

const KEYS = ['created', 'tested_ok', 'failed', 'mismatch', 'shipped'] as const;
const COLORS: Record<(typeof KEYS)[number], string> = {
  created: 'var(--color-text-1)',
  tested_ok: 'rgb(var(--green-6))',
  failed: 'rgb(var(--red-6))',
  mismatch: 'rgb(var(--orange-6))',
  shipped: 'rgb(var(--arcoblue-6))',
};

/** Factory progress of a task: a bar of tested devices out of the quantity, and the five counts. */
export function TaskProgressView({
  progress,
  quantity,
  t,
  compact,
}: {
  progress: TaskProgress;
  quantity: number;
  t: Translate;
  compact?: boolean;
}) {
  const tested = progress.tested_ok + progress.failed;
  const counts = (
    <Space size={compact ? 8 : 24} wrap>
      {KEYS.map((k) => (
        <span key={k} style={{ whiteSpace: 'nowrap' }} data-progress={k}>
          <span style={{ color: 'var(--color-text-3)' }}>{t(`prod.progress.${k}`)} </span>
          <b style={{ color: COLORS[k] }}>{progress[k]}</b>
        </span>
      ))}
    </Space>
  );
  if (compact)
    return (
      <Tooltip content={counts}>
        <Progress
          size="small"
          percent={quantity ? Math.round((tested / quantity) * 100) : 0}
          formatText={() => `${tested}/${quantity}`}
          style={{ width: 150 }}
        />
      </Tooltip>
    );
  return (
    <Space direction="vertical" size={8} style={{ width: '100%' }}>
      <Progress
        percent={quantity ? Math.round((tested / quantity) * 100) : 0}
        formatText={() => `${tested}/${quantity}`}
      />
      {counts}
    </Space>
  );
}
