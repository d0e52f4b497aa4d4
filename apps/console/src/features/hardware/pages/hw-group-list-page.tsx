import type { HwGroupItem } from '@cellhub/contract/hardware';
import { Button, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteHwGroup, useHwGroups, type HwGroupParams } from '../api';
import { HwGroupDialog } from '../components/hw-group-form';
import { HwGroupValues } from '../components/hw-group-values';
import locale from '../locale';

/** Hardware groups (admin): named bills of hardware values that production tasks build. */
export default function HwGroupListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<HwGroupParams>();
  const query = useHwGroups(params);
  const remove = useDeleteHwGroup();
  const [editing, setEditing] = useState<HwGroupItem | 'new' | null>(null);

  const columns: TableColumnProps<HwGroupItem>[] = [
    {
      title: t('hw.group.name'),
      dataIndex: 'name',
      width: 220,
      render: (v: string, row) => (
        <Button type="text" size="mini" onClick={() => void navigate(`/hw/group/${row.id}`)}>
          {v}
        </Button>
      ),
    },
    {
      title: t('hw.group.values'),
      dataIndex: 'values',
      render: (_: unknown, row) => <HwGroupValues values={row.values} t={t} />,
    },
    { title: t('hw.group.tasks'), dataIndex: 'tasks', width: 110 },
    { title: t('hw.updated'), dataIndex: 'updatedat', width: 190, render: (v: string) => formatTime(v) },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 200,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={() => setEditing(row)}
          confirm={t('hw.group.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/hw/group/${row.id}`}>{t('hw.group.open')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<HwGroupItem, HwGroupParams>
      title={t('hw.group.title')}
      help={t('hw.group.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('hw.group.name')}
            placeholder={t('hw.group.keyword.placeholder')}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('hw.group.create'), onClick: () => setEditing('new') }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('hw.total', { total })}
    >
      <HwGroupDialog
        t={t}
        visible={editing !== null}
        group={editing && editing !== 'new' ? editing : undefined}
        onClose={() => setEditing(null)}
        onSaved={(g) => {
          if (editing === 'new') void navigate(`/hw/group/${g.id}`);
        }}
      />
    </ListPage>
  );
}
