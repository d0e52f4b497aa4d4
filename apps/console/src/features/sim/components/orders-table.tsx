import {
  ORDER_KINDS,
  ORDER_STATUSES,
  type OrderItem,
  type OrderKind,
  type OrderStatus,
} from '@cellhub/contract/sim';
import {
  Alert,
  Button,
  DatePicker,
  Divider,
  Empty,
  Form,
  Grid,
  Input,
  Message,
  Modal,
  Popconfirm,
  Result,
  Space,
  Spin,
  Table,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { ApiError } from '../../../lib/request';
import {
  useBalance,
  useCancelOrder,
  useOrder,
  useOrderAdminAction,
  useOrderList,
  usePayOrder,
  type OrderListParams,
} from '../api';
import locale from '../locale';
import { formatDate, newIdempotencyKey, yuan } from '../sim-format';
import styles from '../pages/sim.module.css';
import { AccountSelect } from './account-select';
import { OrderKindTag, OrderStatusTag } from './sim-tags';

interface Filter {
  keyword?: string;
  status?: OrderStatus;
  kind?: OrderKind;
  uid?: number;
  range?: [string, string];
}

/** The cards of one order (loaded when its row opens): what each got, and whether a refund took it back. */
function OrderCards({ id }: { id: number }) {
  const t = useLocale(locale);
  const { data, isLoading } = useOrder(id);
  if (isLoading || !data) return <Spin />;
  return (
    <Table
      size="small"
      rowKey="iccid"
      pagination={false}
      data={data.cards}
      columns={[
        {
          title: t('sim.col.iccid'),
          dataIndex: 'iccid',
          render: (v: string) => (
            <Link to={`/card/detail/${v}`} className={`${styles.link} ${styles.mono}`}>
              {v}
            </Link>
          ),
        },
        { title: t('sim.col.kind'), dataIndex: 'kind', render: (v: OrderKind) => <OrderKindTag kind={v} /> },
        {
          title: t('sim.col.expiryBefore'),
          dataIndex: 'expiry_before',
          render: (v: string | null) => (v ? formatTime(v) : '-'),
        },
        {
          title: t('sim.col.expiryAfter'),
          dataIndex: 'expiry_after',
          render: (v: string | null) => (v ? formatTime(v) : '-'),
        },
        {
          title: t('sim.col.reverted'),
          dataIndex: 'reverted',
          render: (v: boolean | null) =>
            v === null ? '-' : v ? t('sim.order.reverted.yes') : t('sim.order.reverted.no'),
        },
      ]}
    />
  );
}

type AdminAction = { order: OrderItem; action: 'refund' | 'complete' };

/** Admin: refund a paid order or complete a pending one, with a note, after reading what it will do. */
function AdminActionModal({ target, onClose }: { target?: AdminAction; onClose: () => void }) {
  const t = useLocale(locale);
  const [note, setNote] = useState('');
  const run = useOrderAdminAction();
  const o = target?.order;
  const submit = async () => {
    if (!target) return;
    try {
      await run.mutateAsync({ id: target.order.id, action: target.action, note: note.trim() });
      Message.success(t(target.action === 'refund' ? 'sim.order.refund.done' : 'sim.order.complete.done'));
      setNote('');
      onClose();
    } catch {
      // The request layer has shown why.
    }
  };
  return (
    <Modal
      title={target ? t(`sim.order.${target.action}.title`, { no: target.order.order_no }) : ''}
      visible={!!target}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={target ? t(`sim.order.${target.action}`) : ''}
      okButtonProps={{ status: target?.action === 'refund' ? 'danger' : undefined }}
      confirmLoading={run.isPending}
      unmountOnExit
    >
      {o && target && (
        <Space direction="vertical" style={{ width: '100%' }} size={12}>
          <Alert
            type="warning"
            content={
              target.action === 'refund'
                ? o.payment_method === 'balance'
                  ? t('sim.order.refund.hintBalance', {
                      amount: yuan(o.amount_fen),
                      user: o.username ?? `#${o.uid}`,
                    })
                  : t('sim.order.refund.hintManual')
                : t('sim.order.complete.hint', { amount: yuan(o.amount_fen), count: o.card_count })
            }
          />
          <Input.TextArea
            value={note}
            onChange={setNote}
            maxLength={200}
            showWordLimit
            placeholder={t('sim.order.note.placeholder')}
            aria-label={t('sim.col.note')}
          />
        </Space>
      )}
    </Modal>
  );
}

/**
 * Orders: the buyer's own (pending ones can be paid or cancelled) or, for admins, everyone's with the buyer, refunds
 * and manual completion. Rows open to the cards of the order.
 */
export function OrdersTable({ admin = false, toolbar }: { admin?: boolean; toolbar?: ReactNode }) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Filter>();
  const [params, setParams] = useState<OrderListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useOrderList(params);
  const balance = useBalance();
  const pay = usePayOrder();
  const cancel = useCancelOrder();
  const [adminAction, setAdminAction] = useState<AdminAction>();
  const payKeys = useRef(new Map<number, string>());

  const search = () => {
    const v = form.getFieldsValue();
    setParams((p) => ({
      current: 1,
      per_page: p.per_page,
      keyword: v.keyword?.trim() || undefined,
      status: v.status || undefined,
      kind: v.kind || undefined,
      uid: v.uid || undefined,
      from: v.range?.[0] ? new Date(`${v.range[0]}T00:00:00`).toISOString() : undefined,
      to: v.range?.[1] ? new Date(`${v.range[1]}T23:59:59.999`).toISOString() : undefined,
    }));
  };

  const payPending = (o: OrderItem) =>
    Modal.confirm({
      title: t('sim.pay.confirmTitle'),
      content: t('sim.order.payPending', {
        amount: yuan(o.amount_fen),
        no: o.order_no,
        balance: balance.data ? yuan(balance.data.balance_fen) : '-',
      }),
      okText: t('sim.pay.confirmOk'),
      onOk: async () => {
        const key = payKeys.current.get(o.id) ?? newIdempotencyKey();
        payKeys.current.set(o.id, key);
        try {
          await pay.mutateAsync({ id: o.id, idempotencyKey: key });
          payKeys.current.delete(o.id);
          Message.success(t('sim.pay.done'));
        } catch (e) {
          if (e instanceof ApiError && e.answered) payKeys.current.delete(o.id);
          if (e instanceof ApiError && e.httpStatus !== 403) {
            const d = (e.details ?? {}) as { balance_fen?: number; amount_fen?: number };
            Message.error(
              e.code === 60002 && d.balance_fen !== undefined && d.amount_fen !== undefined
                ? t('sim.pay.insufficient', { balance: yuan(d.balance_fen), amount: yuan(d.amount_fen) })
                : e.httpStatus === 0
                  ? t('sim.pay.network')
                  : e.message,
            );
          }
        }
      },
    });

  const columns: TableColumnProps<OrderItem>[] = [
    {
      // Admins see the buyer under the order number (the time on hover); buyers see the time.
      title: admin ? t('sim.col.orderBuyer') : t('sim.col.orderNo'),
      dataIndex: 'order_no',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <Tooltip content={formatTime(r.createdat)} disabled={!admin}>
            <span className={styles.mono}>{v}</span>
          </Tooltip>
          {admin ? (
            <span
              className={`${styles.small} ${styles.clip}`}
              style={{ maxWidth: 150 }}
              title={r.username ?? ''}
            >
              {r.username ?? `#${r.uid}`}
            </span>
          ) : (
            <span className={`${styles.muted} ${styles.small} ${styles.nowrap}`}>
              {formatTime(r.createdat)}
            </span>
          )}
        </div>
      ),
    },
    {
      title: t('sim.col.package'),
      dataIndex: 'package_name',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <span className={styles.clip} style={{ maxWidth: 150 }} title={v}>
            {v}
          </span>
          <span className={`${styles.muted} ${styles.small} ${styles.clip}`} style={{ maxWidth: 150 }}>
            {r.package_code}
          </span>
        </div>
      ),
    },
    { title: t('sim.col.kind'), dataIndex: 'kind', render: (v: OrderKind) => <OrderKindTag kind={v} /> },
    {
      // The amount over its cards and unit price: the order table fits 1280 px with the buyer column.
      title: t('sim.col.amount'),
      dataIndex: 'amount_fen',
      align: 'right',
      render: (v: number, r) => (
        <div className={styles.stack}>
          <span className={styles.money}>{yuan(v)}</span>
          <span className={`${styles.muted} ${styles.small} ${styles.nowrap}`}>
            {t('sim.order.cardsTimes', { count: r.card_count, price: yuan(r.unit_price_fen) })}
          </span>
        </div>
      ),
    },
    {
      // Status over how and when it got there (paid, refunded or cancelled); the note on hover.
      title: t('sim.col.status'),
      dataIndex: 'status',
      render: (v: OrderStatus, r) => {
        const at = r.refunded_at ?? r.cancelled_at ?? r.paid_at;
        const how = [
          r.payment_method && v !== 'cancelled' ? t(`sim.payment.${r.payment_method}`) : '',
          at ? formatDate(at) : '',
        ]
          .filter(Boolean)
          .join(' · ');
        return (
          <Tooltip content={r.note || undefined} disabled={!r.note}>
            <div className={styles.stack}>
              <span>
                <OrderStatusTag status={v} />
              </span>
              {how && <span className={`${styles.muted} ${styles.small} ${styles.nowrap}`}>{how}</span>}
            </div>
          </Tooltip>
        );
      },
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0} className={styles.nowrap}>
          {!admin && r.status === 'pending' && (
            <Button type="text" size="small" onClick={() => payPending(r)}>
              {t('sim.order.pay')}
            </Button>
          )}
          {admin && r.status === 'pending' && (
            <Button type="text" size="small" onClick={() => setAdminAction({ order: r, action: 'complete' })}>
              {t('sim.order.complete')}
            </Button>
          )}
          {admin && r.status === 'paid' && (
            <Button
              type="text"
              size="small"
              status="danger"
              onClick={() => setAdminAction({ order: r, action: 'refund' })}
            >
              {t('sim.order.refund')}
            </Button>
          )}
          {r.status === 'pending' && (
            <Popconfirm
              title={t('sim.order.cancel.confirm')}
              onOk={() =>
                cancel.mutateAsync(r.id).then(
                  () => Message.success(t('sim.order.cancel.done')),
                  () => undefined,
                )
              }
            >
              <Button type="text" size="small" status="warning">
                {t('sim.order.cancel')}
              </Button>
            </Popconfirm>
          )}
          {r.status !== 'pending' && !(admin && r.status === 'paid') && (
            <span className={styles.muted}>-</span>
          )}
        </Space>
      ),
    },
  ];

  const all = t('sim.filter.all');
  return (
    <div data-testid={admin ? 'sim-admin-orders' : 'sim-my-orders'}>
      <ListSearchBar
        form={form}
        labelAlign="left"
        labelCol={{ span: 7 }}
        wrapperCol={{ span: 17 }}
        onSearch={search}
      >
        <Grid.Row gutter={16}>
          <KeywordFilter
            label={t('sim.filter.keyword')}
            placeholder={t('sim.filter.orderKeyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('sim.filter.status')}
            field="status"
            placeholder={all}
            options={ORDER_STATUSES.map((s) => ({ label: t(`sim.orderStatus.${s}`), value: s }))}
          />
          <ChoiceFilter
            label={t('sim.filter.kind')}
            field="kind"
            placeholder={all}
            options={ORDER_KINDS.map((k) => ({ label: t(`sim.orderKind.${k}`), value: k }))}
          />
          {admin && (
            <Grid.Col span={8}>
              <Form.Item label={t('sim.filter.buyer')} field="uid">
                <AccountSelect placeholder={all} />
              </Form.Item>
            </Grid.Col>
          )}
          {admin && (
            <Grid.Col span={8}>
              <Form.Item label={t('sim.filter.created')} field="range">
                <DatePicker.RangePicker style={{ width: '100%' }} />
              </Form.Item>
            </Grid.Col>
          )}
        </Grid.Row>
      </ListSearchBar>
      <Divider style={{ marginTop: 0 }} />
      {toolbar && <div className={styles.toolbar}>{toolbar}</div>}
      {isError && !data ? (
        <Result
          status="error"
          title={t('sim.loadError')}
          extra={
            <Button type="primary" onClick={() => void refetch()}>
              {t('sim.retry')}
            </Button>
          }
        />
      ) : (
        <Table<OrderItem>
          rowKey="id"
          loading={isFetching && !data}
          columns={columns}
          data={data?.data ?? []}
          noDataElement={<Empty description={t('sim.order.empty')} />}
          scroll={{ x: 'max-content' }}
          expandedRowRender={(r) => <OrderCards id={r.id} />}
          pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
        />
      )}
      {admin && <AdminActionModal target={adminAction} onClose={() => setAdminAction(undefined)} />}
    </div>
  );
}
