import type { SimCardItem } from '@cellhub/contract/sim';
import {
  Button,
  Dropdown,
  Menu,
  Message,
  Modal,
  Select,
  Space,
  Form,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconFile, IconMore, IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ButtonAction, RowActions, RowLink } from '../../../components/row-actions';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import {
  useCardList,
  useCardStatusAction,
  useDeleteCard,
  useProviderOptions,
  type CardListParams,
} from '../api';
import { CardEditModal } from '../components/card-edit-modal';
import { CardExportButton } from '../components/card-export-button';
import { CardFilters, filterFromValues, type CardFilterValues } from '../components/card-filters';
import { CardFlagTags, CardStatusTag, ExpiryText, UsageBar } from '../components/sim-tags';
import locale from '../locale';
import styles from './sim.module.css';

type RowAction = 'activate' | 'suspend' | 'delete';

/** /card-admin/card: every card in stock and in service, with status filters, edit, activate/suspend, delete. */
export default function StockListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<CardListParams, CardFilterValues>(
    undefined,
    filterFromValues,
  );
  const query = useCardList(params, 'admin');
  const providers = useProviderOptions();
  const status = useCardStatusAction();
  const remove = useDeleteCard();
  const [editing, setEditing] = useState<SimCardItem>();

  const runStatus = (r: SimCardItem, action: 'activate' | 'suspend') =>
    status.mutateAsync({ iccid: r.iccid, action }).then(
      () => Message.success(t(`sim.stock.${action}.done`)),
      (e: unknown) => {
        if (!(e instanceof ApiError) || e.httpStatus === 403) return;
        const d = e.details as { message?: string } | undefined;
        Message.error(d?.message ? `${e.message}: ${d.message}` : e.message);
      },
    );

  const rowAction = (r: SimCardItem, action: RowAction) =>
    Modal.confirm({
      title: action === 'delete' ? t('sim.deleteConfirm') : t(`sim.stock.${action}.confirm`),
      content: action === 'delete' ? t('sim.stock.delete.hint') : r.iccid,
      okButtonProps: action === 'activate' ? undefined : { status: 'danger' },
      onOk: () =>
        action === 'delete'
          ? remove.mutateAsync(r.iccid).then(
              () => void Message.success(t('sim.deleted')),
              () => undefined,
            )
          : runStatus(r, action),
    });

  const columns: TableColumnProps<SimCardItem>[] = [
    {
      title: t('sim.col.iccidPhone'),
      dataIndex: 'iccid',
      render: (_: unknown, r) => (
        <div className={styles.stack}>
          <RowLink to={`/card/detail/${r.iccid}`} className={styles.mono}>
            {r.iccid}
          </RowLink>
          <span className={`${styles.muted} ${styles.small} ${styles.mono}`}>{r.phone || '-'}</span>
        </div>
      ),
    },
    {
      title: t('sim.col.operatorProvider'),
      dataIndex: 'operator',
      render: (_: unknown, r) => (
        <div className={styles.stack}>
          <span className={styles.nowrap}>{t(`sim.operator.${r.operator}`)}</span>
          <span className={`${styles.muted} ${styles.small} ${styles.clip}`} style={{ maxWidth: 140 }}>
            {r.provider_name ?? '-'}
          </span>
        </div>
      ),
    },
    {
      title: t('sim.col.status'),
      dataIndex: 'status',
      render: (_: unknown, r) => (
        <Space size={4} wrap style={{ maxWidth: 84 }}>
          <CardStatusTag status={r.status} raw={r.raw_status} />
          <CardFlagTags flags={r.flags} omit={['expiring', 'expired']} />
        </Space>
      ),
    },
    {
      // Package over this month's use: seven columns fit a 1280 px window.
      title: t('sim.col.packageUsage'),
      dataIndex: 'package_name',
      render: (v: string | null, r) => (
        <div className={styles.stack}>
          {v ? (
            <span className={styles.clip} style={{ maxWidth: 150 }} title={v}>
              {v}
            </span>
          ) : (
            <span className={styles.muted}>{t('sim.noPackage')}</span>
          )}
          <UsageBar used={r.month_used} total={r.month_total} width={110} />
        </div>
      ),
    },
    {
      title: t('sim.col.expiry'),
      dataIndex: 'expiry',
      render: (v: string | null) => <ExpiryText expiry={v} stacked />,
    },
    {
      title: t('sim.col.userDevice'),
      dataIndex: 'username',
      render: (_: unknown, r) => (
        <div className={styles.stack} style={{ maxWidth: 120 }}>
          <span className={styles.clip} title={r.username ?? undefined}>
            {r.username ?? <span className={styles.muted}>{t('sim.stock.unassigned')}</span>}
          </span>
          {r.device_sn && (
            <span
              className={`${styles.muted} ${styles.small} ${styles.mono} ${styles.clip}`}
              title={r.device_sn}
            >
              {r.device_sn}
            </span>
          )}
        </div>
      ),
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <RowActions>
          <ButtonAction onClick={() => setEditing(r)}>{t('sim.edit')}</ButtonAction>
          <Dropdown
            position="br"
            droplist={
              <Menu onClickMenuItem={(key) => rowAction(r, key as RowAction)}>
                {r.status === 'active' ? (
                  <Menu.Item key="suspend">{t('sim.stock.suspend')}</Menu.Item>
                ) : (
                  <Menu.Item key="activate" disabled={r.status === 'deactivated'}>
                    {t('sim.stock.activate')}
                  </Menu.Item>
                )}
                <Menu.Item key="delete">
                  <span className={styles.danger}>{t('sim.delete')}</span>
                </Menu.Item>
              </Menu>
            }
          >
            <Button type="text" size="small" icon={<IconMore />} aria-label={t('sim.more')} />
          </Dropdown>
        </RowActions>
      ),
    },
  ];

  const create = () => void navigate('/card-admin/card/create');
  const batch = () => void navigate('/card-admin/card/batch');

  return (
    <ListPage<SimCardItem, CardListParams>
      title={t('sim.stock.title')}
      search={
        <CardFilters
          form={form}
          onSearch={search}
          extra={
            <Form.Item label={t('sim.field.provider')} field="provider_id">
              <Select
                placeholder={t('sim.filter.all')}
                allowClear
                options={(providers.data?.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
              />
            </Form.Item>
          }
        />
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('sim.stock.create'), onClick: create }}
      toolbarStart={
        <>
          <Button icon={<IconUpload />} onClick={batch}>
            {t('sim.stock.batch')}
          </Button>
          <Button icon={<IconFile />} onClick={() => void navigate('/card-admin/card/log')}>
            {t('sim.stock.log')}
          </Button>
        </>
      }
      toolbarEnd={
        <>
          <CardExportButton params={params} scope="admin" />
          <Dropdown
            droplist={
              <Menu onClickMenuItem={(k) => k === 'usage' && navigate('/card-admin/card/batch?tab=usage')}>
                <Menu.Item key="usage">{t('sim.usageImport.title')}</Menu.Item>
              </Menu>
            }
          >
            <Button icon={<IconMore />} aria-label={t('sim.more')} />
          </Dropdown>
        </>
      }
      rowKey="iccid"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      quietRefetch
      total={(total) => t('sim.total', { total })}
      empty={
        <ListEmpty
          text={t('sim.stock.empty')}
          actions={
            <>
              <Button type="primary" size="small" onClick={create}>
                {t('sim.stock.create')}
              </Button>
              <Button size="small" onClick={batch}>
                {t('sim.stock.batch')}
              </Button>
            </>
          }
        />
      }
      tableProps={{ scroll: { x: 'max-content' } }}
    >
      <CardEditModal card={editing} onClose={() => setEditing(undefined)} />
    </ListPage>
  );
}
