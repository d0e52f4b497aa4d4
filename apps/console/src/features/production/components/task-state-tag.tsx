import type { TaskState } from '@cellhub/contract/production';
import { Tag } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';

const COLORS: Record<TaskState, string> = {
  draft: 'gray',
  producing: 'arcoblue',
  done: 'green',
  cancelled: 'orangered',
};

export function TaskStateTag({ state, t }: { state: TaskState; t: Translate }) {
  return <Tag color={COLORS[state]}>{t(`prod.task.state.${state}`)}</Tag>;
}
