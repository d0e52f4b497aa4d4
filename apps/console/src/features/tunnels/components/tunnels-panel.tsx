import {
  Alert,
  Badge,
  Button,
  Card,
  Empty,
  Form,
  Input,
  Link,
  InputNumber,
  Modal,
  Radio,
  Result,
  Space,
  Table,
  Tooltip,
  Typography,
  type BadgeProps,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus, IconRefresh } from '@arco-design/web-react/icon';
import {
  IPV4_RULE,
  TUNNEL_EXPOSURES,
  TUNNEL_PROTOCOLS,
  type TunnelBody,
  type TunnelItem,
  type TunnelReason,
  type TunnelStatus,
} from '@cellhub/contract/tunnels';
import { useState } from 'react';
import { ConfirmAction, RowActions } from '../../../components/row-actions';
import { formatSize } from '../../../lib/format-size';
import { formatTime } from '../../../lib/format-time';
import { type Translate, useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { toast } from '../../../lib/toast';
import { useCloseTunnel, useOpenTunnel, useTunnels } from '../api';
import locale from '../locale';

const STATUS_BADGE: Record<TunnelStatus, Pick<BadgeProps, 'status' | 'color'>> = {
  opening: { status: 'processing' },
  open: { status: 'success' },
  closed: { color: 'gray' },
  failed: { status: 'error' },
};

const reasonText = (t: Translate, reason: TunnelReason | null | undefined) =>
  reason ? t(`tunnels.reason.${reason}`) : '';

function AddressCell({ item, t }: { item: TunnelItem; t: Translate }) {
  if (!item.address) return <Typography.Text type="secondary">-</Typography.Text>;
  const ws = item.exposure === 'ws';
  // A ws URL carries its secret while open; closed ones are history without it.
  const live = item.status === 'open' && (!ws || /\/ws\/[^/]+$/.test(item.address));
  const href = item.protocol === 'http' && !ws ? `http://${item.address}` : undefined;
  return (
    <Space direction="vertical" size={0}>
      <Typography.Text
        copyable={live ? { text: item.address } : false}
        type={live ? undefined : 'secondary'}
        style={ws ? { margin: 0, wordBreak: 'break-all' } : { margin: 0, whiteSpace: 'nowrap' }}
        data-testid="tunnel-address"
      >
        {live && href ? (
          <Link href={href} target="_blank" rel="noreferrer" style={{ padding: 0 }}>
            {href}
          </Link>
        ) : (
          item.address
        )}
      </Typography.Text>
      {live && ws && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('tunnels.ws.hint')}
        </Typography.Text>
      )}
      {live && (
        <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
          {t('tunnels.allowed', { ip: item.allowed_ip })}
        </Typography.Text>
      )}
    </Space>
  );
}

function OpenTunnelModal({ sn, onClose }: { sn: string; onClose: () => void }) {
  const t = useLocale(locale);
  const [form] = Form.useForm<TunnelBody>();
  const open = useOpenTunnel(sn);
  const failure =
    open.error instanceof ApiError && open.error.code === 11016
      ? ((open.error.details as { reason?: TunnelReason } | undefined)?.reason ?? null)
      : undefined;

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    const made = await open.mutateAsync(values).catch(() => undefined);
    if (!made) return;
    toast('success', t('tunnels.opened', { address: made.address ?? '' }));
    onClose();
  };

  return (
    <Modal
      visible
      title={t('tunnels.form.title')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('tunnels.form.submit')}
      cancelText={t('tunnels.form.cancel')}
      confirmLoading={open.isPending}
      maskClosable={!open.isPending}
      unmountOnExit
      data-testid="tunnel-form"
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={{ protocol: 'tcp', exposure: 'tcp', local_ip: '192.168.1.10' }}
        disabled={open.isPending}
      >
        <Form.Item
          label={t('tunnels.form.name')}
          field="name"
          rules={[{ required: true, message: t('tunnels.form.name.required') }, { maxLength: 64 }]}
        >
          <Input placeholder={t('tunnels.form.name.placeholder')} maxLength={64} />
        </Form.Item>
        <Form.Item
          label={t('tunnels.form.protocol')}
          field="protocol"
          extra={t('tunnels.form.protocol.help')}
        >
          <Radio.Group type="button">
            {TUNNEL_PROTOCOLS.map((p) => (
              <Radio key={p} value={p}>
                {p.toUpperCase()}
              </Radio>
            ))}
          </Radio.Group>
        </Form.Item>
        <Form.Item
          label={t('tunnels.form.exposure')}
          field="exposure"
          extra={t('tunnels.form.exposure.help')}
        >
          <Radio.Group type="button" data-testid="tunnel-exposure">
            {TUNNEL_EXPOSURES.map((e) => (
              <Radio key={e} value={e}>
                {t(`tunnels.exposure.${e}`)}
              </Radio>
            ))}
          </Radio.Group>
        </Form.Item>
        <Space size={16} align="start" style={{ width: '100%' }}>
          <Form.Item
            label={t('tunnels.form.localIp')}
            field="local_ip"
            style={{ width: 280 }}
            rules={[
              { required: true, message: t('tunnels.form.localIp.required') },
              {
                validator: (v: string | undefined, cb) =>
                  cb(v && !IPV4_RULE.test(v.trim()) ? t('tunnels.form.localIp.invalid') : undefined),
              },
            ]}
          >
            <Input placeholder={t('tunnels.form.localIp.placeholder')} />
          </Form.Item>
          <Form.Item
            label={t('tunnels.form.localPort')}
            field="local_port"
            style={{ width: 160 }}
            rules={[
              {
                required: true,
                type: 'number',
                min: 1,
                max: 65535,
                message: t('tunnels.form.localPort.required'),
              },
            ]}
          >
            <InputNumber min={1} max={65535} precision={0} placeholder="80" />
          </Form.Item>
        </Space>
      </Form>
      {open.isPending && (
        <Alert type="info" content={t('tunnels.form.opening')} data-testid="tunnel-opening" />
      )}
      {failure !== undefined && !open.isPending && (
        <Alert
          type="error"
          content={t('tunnels.form.failed', { reason: reasonText(t, failure) })}
          data-testid="tunnel-failed"
        />
      )}
    </Modal>
  );
}

/** The device page's "Remote tunnel" tab: the device's tunnels, open and close them (owner or control share). */
export default function TunnelsPanel({ sn, readOnly }: { sn: string; readOnly?: boolean }) {
  const t = useLocale(locale);
  const [page, setPage] = useState({ current: 1, per_page: 10 });
  const [opening, setOpening] = useState(false);
  const list = useTunnels(sn, page, !readOnly);
  const close = useCloseTunnel(sn);

  if (readOnly)
    return (
      <Card bordered={false}>
        <Alert type="info" content={t('tunnels.readOnly')} />
      </Card>
    );

  const muted = { fontSize: 12, wordBreak: 'normal' } as const;
  const columns: TableColumnProps<TunnelItem>[] = [
    {
      title: t('tunnels.col.name'),
      width: 120,
      render: (_: unknown, r) => (
        <Space direction="vertical" size={0}>
          <Typography.Text ellipsis style={{ margin: 0, maxWidth: 100 }}>
            {r.name}
          </Typography.Text>
          <Typography.Text type="secondary" style={muted}>
            {r.protocol.toUpperCase()}
            {r.exposure === 'ws' ? ` · ${t('tunnels.exposure.ws')}` : ''}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('tunnels.col.target'),
      width: 150,
      render: (_: unknown, r) => (
        <span style={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>
          {r.local_ip}:{r.local_port}
        </span>
      ),
    },
    {
      title: t('tunnels.col.address'),
      width: 240,
      render: (_: unknown, r) => <AddressCell item={r} t={t} />,
    },
    {
      title: t('tunnels.col.status'),
      width: 160,
      render: (_: unknown, r) => {
        const why =
          r.status === 'open' && r.expires_at
            ? `${t('tunnels.expires')}\n${formatTime(r.expires_at)}`
            : reasonText(t, r.reason);
        return (
          <Space direction="vertical" size={0}>
            <Badge
              {...STATUS_BADGE[r.status]}
              text={t(`tunnels.status.${r.status}`)}
              data-testid="tunnel-status"
            />
            {why && (
              <Typography.Text type="secondary" style={{ ...muted, whiteSpace: 'pre-line' }}>
                {r.code ? `${r.code} · ` : ''}
                {why}
              </Typography.Text>
            )}
          </Space>
        );
      },
    },
    {
      title: t('tunnels.col.bytes'),
      width: 120,
      render: (_: unknown, r) => (
        <Space direction="vertical" size={0}>
          <span style={{ whiteSpace: 'nowrap' }}>
            {formatSize(r.bytes_in)} / {formatSize(r.bytes_out)}
          </span>
          <Typography.Text type="secondary" style={muted}>
            {t('tunnels.connections', { n: r.connections })}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('tunnels.col.openedBy'),
      width: 140,
      render: (_: unknown, r) => (
        <Space direction="vertical" size={0}>
          <Typography.Text ellipsis style={{ margin: 0, maxWidth: 130 }}>
            {r.opened_by}
          </Typography.Text>
          <Typography.Text type="secondary" style={muted}>
            {formatTime(r.createdat)}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('tunnels.col.actions'),
      width: 70,
      render: (_: unknown, r) =>
        r.status === 'open' || r.status === 'opening' ? (
          <RowActions>
            <ConfirmAction
              title={t('tunnels.closeConfirm')}
              status="danger"
              onConfirm={() => close.mutateAsync(r.id)}
              done={t('tunnels.closed')}
            >
              {t('tunnels.close')}
            </ConfirmAction>
          </RowActions>
        ) : null,
    },
  ];

  return (
    <Card
      bordered={false}
      title={t('tunnels.title')}
      extra={
        <Space>
          <Tooltip content={t('tunnels.refresh')}>
            <Button
              icon={<IconRefresh />}
              aria-label={t('tunnels.refresh')}
              onClick={() => void list.refetch()}
            />
          </Tooltip>
          <Button
            type="primary"
            icon={<IconPlus />}
            onClick={() => setOpening(true)}
            data-testid="tunnel-open"
          >
            {t('tunnels.open')}
          </Button>
        </Space>
      }
      data-testid="tunnels-panel"
    >
      <Typography.Paragraph type="secondary" style={{ marginTop: 0, wordBreak: 'normal' }}>
        {t('tunnels.help')}
      </Typography.Paragraph>
      {list.isError && !list.data ? (
        <Result
          status="error"
          title={t('tunnels.loadError')}
          subTitle={list.error instanceof Error ? list.error.message : undefined}
          extra={<Button onClick={() => void list.refetch()}>{t('tunnels.retry')}</Button>}
        />
      ) : (
        <Table<TunnelItem>
          rowKey="id"
          columns={columns}
          data={list.data?.data ?? []}
          loading={list.isLoading}
          scroll={{ x: 960 }}
          border={false}
          noDataElement={<Empty description={`${t('tunnels.empty')} · ${t('tunnels.empty.hint')}`} />}
          pagination={{
            current: page.current,
            pageSize: page.per_page,
            total: list.data?.total ?? 0,
            hideOnSinglePage: true,
            onChange: (current, per_page) => setPage({ current, per_page }),
          }}
          data-testid="tunnels-table"
        />
      )}
      {opening && <OpenTunnelModal sn={sn} onClose={() => setOpening(false)} />}
    </Card>
  );
}
