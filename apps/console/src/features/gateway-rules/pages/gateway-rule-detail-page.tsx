import type { SubDeviceItem } from '@cellhub/contract/gateway-rules';
import {
  Button,
  Card,
  Descriptions,
  Empty,
  Message,
  Popconfirm,
  Space,
  Table,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { ConfirmAction, RowActions, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteGatewayRule, useGatewayRule, useUnbindSubDevices } from '../api';
import { BindModal } from '../components/bind-modal';
import { OnlineBadge } from '../components/online-badge';
import { RenameModal } from '../components/rename-modal';
import { deviceLink, GATEWAY_RULES_BASE } from '../device-link';
import locale from '../locale';

/** /rule-setting/gate-way/detail/:id — the rule, its gateway and the sub-devices bound to it. */
export default function GatewayRuleDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useGatewayRule(isRecordId(id) ? id : undefined);
  const unbind = useUnbindSubDevices(id);
  const remove = useDeleteGatewayRule();
  const [binding, setBinding] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);

  const state = recordState(load, {
    badId: !isRecordId(id),
    back: `${GATEWAY_RULES_BASE}/list`,
    backLabel: t('gwRule.back'),
    notFoundTitle: t('gwRule.notFound'),
  });
  if (state) return state;
  const rule = load.data!;

  const unbindSns = async (sns: string[]) => {
    const r = await unbind.mutateAsync(sns);
    setSelected((s) => s.filter((sn) => !sns.includes(sn)));
    Message.success(t('gwRule.unbound', { n: r.done }));
  };

  const columns: TableColumnProps<SubDeviceItem>[] = [
    {
      title: t('gwRule.sub.sn'),
      dataIndex: 'sn',
      width: 180,
      ellipsis: true,
      render: (v: string, row) => (
        <RowLink to={deviceLink(row.product_key, v)} title={v}>
          {v}
        </RowLink>
      ),
    },
    {
      title: t('gwRule.sub.name'),
      dataIndex: 'name',
      render: (v: string, row) => v || row.device_name || '-',
    },
    { title: t('gwRule.sub.address'), dataIndex: 'address', width: 100, render: (v: string) => v || '-' },
    {
      title: t('gwRule.sub.product'),
      dataIndex: 'product_name',
      render: (v: string, row) => v || row.product_key,
    },
    {
      title: t('gwRule.sub.online'),
      dataIndex: 'online',
      width: 96,
      render: (v: number) => <OnlineBadge online={v} on={t('gwRule.online')} off={t('gwRule.offline')} />,
    },
    {
      title: t('gwRule.sub.last'),
      dataIndex: 'lastcommunicationat',
      width: 170,
      render: (v: string | null) => <span style={{ whiteSpace: 'nowrap' }}>{v ? formatTime(v) : '-'}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 110,
      render: (_: unknown, row) => (
        <RowActions>
          <ConfirmAction
            title={t('gwRule.unbindConfirm', { sn: row.sn })}
            status="danger"
            onConfirm={() => unbindSns([row.sn])}
          >
            {t('gwRule.unbind')}
          </ConfirmAction>
        </RowActions>
      ),
    },
  ];

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={rule.name}
          extra={
            <Space>
              <Button onClick={() => setRenaming(true)}>{t('gwRule.rename')}</Button>
              <Popconfirm
                title={t('gwRule.deleteConfirm')}
                onOk={() =>
                  remove.mutateAsync(rule.id).then(
                    () => {
                      Message.success(t('common.deleteSuccess'));
                      void navigate(`${GATEWAY_RULES_BASE}/list`);
                    },
                    () => undefined,
                  )
                }
              >
                <Button status="danger">{t('common.delete')}</Button>
              </Popconfirm>
              <Button onClick={() => void navigate(`${GATEWAY_RULES_BASE}/list`)}>{t('common.back')}</Button>
            </Space>
          }
        >
          <Descriptions
            column={3}
            data={[
              {
                label: t('gwRule.col.gateway'),
                value: (
                  <RowLink to={deviceLink(rule.product_key, rule.gateway_sn)}>
                    {rule.gateway_name ? `${rule.gateway_sn} · ${rule.gateway_name}` : rule.gateway_sn}
                  </RowLink>
                ),
              },
              { label: t('gwRule.col.product'), value: rule.product_name || rule.product_key },
              {
                label: t('gwRule.col.online'),
                value: <OnlineBadge online={rule.online} on={t('gwRule.online')} off={t('gwRule.offline')} />,
              },
              { label: t('gwRule.col.subs'), value: rule.sub_device_count },
              { label: t('gwRule.col.updated'), value: formatTime(rule.updatedat) },
            ]}
          />
        </Card>
        <Card
          bordered={false}
          title={t('gwRule.subs')}
          extra={
            <Space>
              {selected.length > 0 ? (
                <Popconfirm
                  title={t('gwRule.unbindSelectedConfirm', { n: selected.length })}
                  onOk={() => unbindSns(selected).catch(() => undefined)}
                >
                  <Button status="danger" data-testid="gw-unbind-selected">
                    {t('gwRule.unbindSelected', { n: selected.length })}
                  </Button>
                </Popconfirm>
              ) : null}
              <Button
                type="primary"
                icon={<IconPlus />}
                onClick={() => setBinding(true)}
                data-testid="gw-bind"
              >
                {t('gwRule.bind')}
              </Button>
            </Space>
          }
        >
          <Table
            rowKey="sn"
            data={rule.sub_devices}
            columns={columns}
            pagination={rule.sub_devices.length > 20 ? { pageSize: 20 } : false}
            rowSelection={{
              type: 'checkbox',
              selectedRowKeys: selected,
              onChange: (keys) => setSelected(keys as string[]),
            }}
            tableLayoutFixed
            data-testid="gw-subs"
            noDataElement={<Empty description={t('gwRule.subs.empty')} />}
          />
        </Card>
      </Space>
      <BindModal ruleId={rule.id} visible={binding} onClose={() => setBinding(false)} />
      <RenameModal ruleId={rule.id} name={rule.name} visible={renaming} onClose={() => setRenaming(false)} />
    </PageContainer>
  );
}
