import { Badge, Button, Card, Form, Input, Radio, Space, Table, Tooltip } from '@arco-design/web-react';
import type { CommandItem, DeviceDetail } from '@cellhub/contract/devices';
import type { CommandType } from '@cellhub/contract/protocol';
import { useState } from 'react';
import { formatTime } from '../../../../lib/format-time';
import { useLocale } from '../../../../lib/i18n';
import { ApiError } from '../../../../lib/request';
import { toast } from '../../../../lib/toast';
import { useCommands, useSendCommand } from '../../detail-api';
import locale from '../../locale/detail-index';
import { COMMAND_MAX_LENGTH, commandDataError } from './command-data';
import styles from './detail.module.css';

const STATUS_BADGE: Record<CommandItem['status'], 'processing' | 'success' | 'warning' | 'error'> = {
  sent: 'processing',
  replied: 'success',
  timeout: 'warning',
  failed: 'error',
};

interface SendForm {
  type: CommandType;
  data: string;
}

/** Sends a command (HEX or string) and lists the history; the page refreshes it on device.command events. */
export default function CommandsPanel({ d }: { d: DeviceDetail }) {
  const t = useLocale(locale);
  const [form] = Form.useForm<SendForm>();
  const [page, setPage] = useState({ current: 1, per_page: 10 });
  const list = useCommands(d.sn, page);
  const send = useSendCommand(d.sn);
  const [type, setType] = useState<CommandType>('hex');

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      await send.mutateAsync({ type: values.type, data: values.data });
      toast('success', t('deviceDetail.cmd.sent'));
      setPage((p) => ({ ...p, current: 1 }));
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      if (e.code === 20401) toast('error', t('deviceDetail.cmd.offline'));
      else if (e.code === 70003 || e.code === 10113)
        form.setFields({ data: { error: { message: e.message } } });
      else toast('error', e.message);
    }
  };

  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <Card bordered={false} title={t('deviceDetail.cmd.send')}>
        <Form
          form={form}
          layout="inline"
          initialValues={{ type: 'hex', data: '' }}
          onValuesChange={(changed) => {
            if (changed.type) {
              setType(changed.type);
              // The rule depends on the type: re-check what is already typed.
              if (form.getFieldValue('data')) void form.validate(['data']).catch(() => undefined);
            }
          }}
          onSubmit={() => void submit()}
        >
          <Form.Item field="type" label={t('deviceDetail.cmd.type')}>
            <Radio.Group type="button">
              <Radio value="hex">HEX</Radio>
              <Radio value="string">String</Radio>
            </Radio.Group>
          </Form.Item>
          <Form.Item
            field="data"
            label={t('deviceDetail.cmd.data')}
            style={{ minWidth: 420 }}
            rules={[
              {
                validator: (value: string | undefined, cb) => {
                  const err = commandDataError(
                    (form.getFieldValue('type') as CommandType | undefined) ?? 'hex',
                    value,
                  );
                  cb(err ? t(err, { max: COMMAND_MAX_LENGTH }) : undefined);
                },
              },
            ]}
          >
            <Input
              allowClear
              className={styles.mono}
              style={{ width: 360 }}
              data-testid="command-data"
              placeholder={t(
                type === 'hex'
                  ? 'deviceDetail.cmd.data.hexPlaceholder'
                  : 'deviceDetail.cmd.data.stringPlaceholder',
              )}
            />
          </Form.Item>
          <Form.Item>
            <Tooltip content={d.online === 1 ? undefined : t('deviceDetail.cmd.offline')}>
              <Button type="primary" htmlType="submit" loading={send.isPending} data-testid="command-send">
                {t('deviceDetail.cmd.send')}
              </Button>
            </Tooltip>
          </Form.Item>
        </Form>
      </Card>
      <Card bordered={false} title={t('deviceDetail.cmd.history')}>
        <Table
          rowKey="id"
          loading={list.isFetching && !list.data}
          data={list.data?.data ?? []}
          data-testid="command-history"
          pagination={{
            current: page.current,
            pageSize: page.per_page,
            total: list.data?.total ?? 0,
            showTotal: true,
            sizeCanChange: true,
            onChange: (current, per_page) => setPage({ current, per_page }),
          }}
          columns={[
            {
              title: t('deviceDetail.cmd.col.sentat'),
              render: (_: unknown, c) => formatTime(c.sentat),
              width: 170,
            },
            { title: t('deviceDetail.cmd.col.type'), dataIndex: 'type', width: 80 },
            {
              title: t('deviceDetail.cmd.col.data'),
              render: (_: unknown, c) => <span className={styles.mono}>{c.data}</span>,
            },
            {
              title: t('deviceDetail.cmd.col.status'),
              width: 110,
              render: (_: unknown, c) => (
                <Badge status={STATUS_BADGE[c.status]} text={t(`deviceDetail.cmd.status.${c.status}`)} />
              ),
            },
            {
              title: t('deviceDetail.cmd.col.latency'),
              width: 90,
              render: (_: unknown, c) => (c.latency_ms === null ? '-' : `${c.latency_ms} ms`),
            },
            { title: t('deviceDetail.cmd.col.code'), width: 80, render: (_: unknown, c) => c.code ?? '-' },
            {
              title: t('deviceDetail.cmd.col.reply'),
              render: (_: unknown, c) => <span className={styles.mono}>{c.reply ?? '-'}</span>,
            },
          ]}
        />
      </Card>
    </Space>
  );
}
