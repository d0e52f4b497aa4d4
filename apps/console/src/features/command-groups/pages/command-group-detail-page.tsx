import type { CommandParam, GroupCommandItem } from '@cellhub/contract/command-groups';
import {
  Button,
  Card,
  Descriptions,
  Empty,
  Space,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { EditDeleteActions } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useCommandGroup, useDeleteGroupCommand } from '../api';
import locale from '../locale';
import styles from './command-groups.module.css';

/** How a parameter reads in the table: `slave: int 1..247 (1 B)`. */
export function paramSummary(p: CommandParam): string {
  switch (p.type) {
    case 'int':
    case 'number': {
      const range = p.min !== undefined || p.max !== undefined ? ` ${p.min ?? ''}..${p.max ?? ''}` : '';
      const bytes = p.type === 'int' && p.bytes ? ` (${p.bytes} B)` : '';
      return `${p.name}: ${p.type}${range}${bytes}`;
    }
    case 'string':
      return `${p.name}: string ≤${p.max_length}${p.pattern ? ` /${p.pattern}/` : ''}`;
    case 'enum':
      return `${p.name}: ${p.options.join(' | ')}`;
    case 'hex':
      return `${p.name}: hex ${p.bytes} B`;
  }
}

/** /product/command_group/detail/:id — the group and its commands. */
export default function CommandGroupDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useCommandGroup(isRecordId(id) ? id : undefined);
  const remove = useDeleteGroupCommand(id);

  const state = recordState(load, {
    badId: !isRecordId(id),
    back: '/product/command_group',
    backLabel: t('cmdGroup.back'),
    notFoundTitle: t('cmdGroup.notFound'),
  });
  if (state) return state;
  const g = load.data!;
  const base = `/product/command_group/detail/${g.id}/command`;

  const columns: TableColumnProps<GroupCommandItem>[] = [
    { title: t('cmd.col.name'), dataIndex: 'name', width: 160 },
    {
      title: t('cmd.col.type'),
      dataIndex: 'type',
      width: 90,
      render: (v: string) => (
        <Tag size="small" color={v === 'hex' ? 'arcoblue' : 'green'}>
          {t(`cmd.type.${v}`)}
        </Tag>
      ),
    },
    {
      title: t('cmd.col.data'),
      dataIndex: 'data',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    {
      title: t('cmd.col.params'),
      dataIndex: 'params',
      render: (v: CommandParam[]) =>
        v.length === 0 ? (
          '-'
        ) : (
          <Space direction="vertical" size={2}>
            {v.map((p) => (
              <span key={p.name} className={styles.mono}>
                {paramSummary(p)}
              </span>
            ))}
          </Space>
        ),
    },
    {
      title: t('cmd.col.reply'),
      dataIndex: 'reply_pattern',
      width: 130,
      render: (v: string) => (v ? <span className={styles.mono}>{v}</span> : '-'),
    },
    {
      title: t('cmd.col.timeout'),
      dataIndex: 'timeout_s',
      width: 90,
      render: (v: number) => t('cmd.seconds', { n: v }),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 140,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`${base}/edit/${row.id}`}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        />
      ),
    },
  ];

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={g.name}
          extra={
            <Space>
              <Button onClick={() => void navigate(`/product/command_group/edit/${g.id}`)}>
                {t('common.edit')}
              </Button>
              <Button onClick={() => void navigate('/product/command_group')}>{t('common.back')}</Button>
            </Space>
          }
        >
          <Descriptions
            column={3}
            data={[
              { label: t('cmdGroup.col.product'), value: `${g.product_name} (${g.product_key})` },
              { label: t('cmdGroup.col.commands'), value: g.command_count },
              { label: t('cmdGroup.col.updated'), value: formatTime(g.updatedat) },
              { label: t('cmdGroup.col.description'), value: g.description || '-' },
            ]}
          />
        </Card>
        <Card
          bordered={false}
          title={t('cmdGroup.commands')}
          extra={
            <Button
              type="primary"
              icon={<IconPlus />}
              onClick={() => void navigate(`${base}/create`)}
              data-testid="cg-add-command"
            >
              {t('cmdGroup.addCommand')}
            </Button>
          }
        >
          <Table
            rowKey="id"
            data={g.commands}
            columns={columns}
            pagination={false}
            data-testid="cg-commands"
            noDataElement={<Empty description={t('cmdGroup.noCommands')} />}
          />
        </Card>
      </Space>
    </PageContainer>
  );
}
