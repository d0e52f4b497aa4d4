import { TASK_STATES, type ProductionTaskItem, type TaskState } from '@cellhub/contract/production';
import { Button, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { LinkAction, RowActions } from '../../../components/row-actions';
import { useLocale } from '../../../lib/i18n';
import { useTaskList, type TaskListParams } from '../api';
import { TaskDialog } from '../components/task-dialog';
import { TaskProgressView } from '../components/task-progress';
import { TaskStateTag } from '../components/task-state-tag';
import locale from '../locale';

/** /product/productive/task (admin): production tasks with their state and factory progress. */
export default function TaskListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<
    TaskListParams,
    { keyword?: string; state?: TaskState }
  >();
  const query = useTaskList(params);
  const [creating, setCreating] = useState(false);

  const columns: TableColumnProps<ProductionTaskItem>[] = [
    {
      title: t('prod.task.name'),
      dataIndex: 'name',
      render: (v: string, row) => (
        <Button type="text" size="mini" onClick={() => void navigate(`/product/productive/task/${row.id}`)}>
          {v}
        </Button>
      ),
    },
    { title: t('prod.task.product'), dataIndex: 'product_name' },
    { title: t('prod.task.group'), dataIndex: 'hw_group_name' },
    {
      title: t('prod.task.snRange'),
      dataIndex: 'first_sn',
      render: (_: unknown, r) => (
        <span style={{ whiteSpace: 'nowrap' }}>
          {r.first_sn}
          {r.quantity > 1 ? ` … ${r.last_sn}` : ''}
        </span>
      ),
    },
    { title: t('prod.task.quantity'), dataIndex: 'quantity', width: 90 },
    { title: t('prod.task.planned'), dataIndex: 'planned_date', width: 120 },
    {
      title: t('prod.task.state'),
      dataIndex: 'state',
      width: 100,
      render: (v: TaskState) => <TaskStateTag state={v} t={t} />,
    },
    {
      title: t('prod.task.progress'),
      dataIndex: 'progress',
      width: 170,
      render: (_: unknown, r) => (
        <TaskProgressView progress={r.progress} quantity={r.quantity} t={t} compact />
      ),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 100,
      render: (_: unknown, row) => (
        <RowActions>
          <LinkAction to={`/product/productive/task/${row.id}`}>{t('prod.task.open')}</LinkAction>
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<ProductionTaskItem, TaskListParams>
      title={t('prod.task.title')}
      help={t('prod.task.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('prod.task.name')}
            placeholder={t('prod.task.keyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('prod.task.state')}
            field="state"
            placeholder={t('prod.task.state.all')}
            options={TASK_STATES.map((s) => ({ value: s, label: t(`prod.task.state.${s}`) }))}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('prod.task.create'), onClick: () => setCreating(true) }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('prod.total', { total })}
    >
      <TaskDialog
        t={t}
        visible={creating}
        onClose={() => setCreating(false)}
        onSaved={(task) => void navigate(`/product/productive/task/${task.id}`)}
      />
    </ListPage>
  );
}
