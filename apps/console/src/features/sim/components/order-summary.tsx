import type { BalanceInfo, OrderDetail, PackageItem, SimCardItem } from '@cellhub/contract/sim';
import { Alert, Button, Divider, Modal, Space, Typography } from '@arco-design/web-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCreateOrder } from '../api';
import locale from '../locale';
import { formatDate, formatMb, newIdempotencyKey, orderKindOf, previewExpiry, yuan } from '../sim-format';
import styles from '../pages/sim.module.css';
import { validityText } from './package-cards';
import { OrderKindTag } from './sim-tags';

export type PickedCard = Pick<
  SimCardItem,
  'iccid' | 'phone' | 'operator' | 'package_id' | 'package_name' | 'expiry'
>;

/** Why a payment was refused, in the page's words (the code table's text is the fallback). */
function refusalText(e: ApiError, t: ReturnType<typeof useLocale>): string {
  const d = (e.details ?? {}) as { balance_fen?: number; amount_fen?: number; iccids?: string[] };
  if (e.code === 60002 && typeof d.balance_fen === 'number' && typeof d.amount_fen === 'number') {
    return t('sim.pay.insufficient', { balance: yuan(d.balance_fen), amount: yuan(d.amount_fen) });
  }
  if ((e.code === 60005 || e.code === 60003) && Array.isArray(d.iccids) && d.iccids.length > 0) {
    return `${e.message}: ${d.iccids.join(', ')}`;
  }
  return e.message;
}

/**
 * The order on the right of the package page (and in the renew dialog): each card with what the order does to it
 * and its new expiry, the total in yuan, the balance before and after, and the payment from the balance behind a
 * confirmation. One Idempotency-Key per confirmed payment: a retry after a lost answer charges nothing more.
 */
export function OrderSummary({
  pkg,
  cards,
  balance,
  onPaid,
}: {
  pkg: PackageItem | undefined;
  cards: PickedCard[];
  balance: BalanceInfo | undefined;
  onPaid: (order: OrderDetail) => void | Promise<void>;
}) {
  const t = useLocale(locale);
  const create = useCreateOrder();
  const [refusal, setRefusal] = useState<string>();
  const key = useRef<string | undefined>(undefined);
  const iccids = useMemo(() => cards.map((c) => c.iccid), [cards]);
  const selection = `${pkg?.id ?? ''}:${iccids.join(',')}`;

  // Another package or other cards are another request: they get their own key.
  useEffect(() => {
    key.current = undefined;
    setRefusal(undefined);
  }, [selection]);

  const lines = useMemo(
    () => (pkg ? cards.map((c) => ({ card: c, ...previewExpiry(c, pkg) })) : []),
    [cards, pkg],
  );
  const amount = pkg ? pkg.price_fen * cards.length : 0;
  const balanceFen = balance?.balance_fen;
  const after = balanceFen === undefined ? undefined : balanceFen - amount;
  const short = after !== undefined && after < 0;
  const mismatch = pkg ? cards.filter((c) => c.operator !== pkg.operator) : [];
  const ready = !!pkg && cards.length > 0 && mismatch.length === 0 && !short && balanceFen !== undefined;

  const pay = async () => {
    if (!pkg) return;
    key.current ??= newIdempotencyKey();
    setRefusal(undefined);
    try {
      const order = await create.mutateAsync({
        package_id: pkg.id,
        iccids,
        pay: true,
        idempotencyKey: key.current,
      });
      key.current = undefined;
      await onPaid(order);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      // Unanswered (network): the same key goes with the retry. Answered: the next try is a new request.
      if (e.answered) key.current = undefined;
      if (e.httpStatus !== 403) setRefusal(e.httpStatus === 0 ? t('sim.pay.network') : refusalText(e, t));
    }
  };

  const confirm = () =>
    Modal.confirm({
      title: t('sim.pay.confirmTitle'),
      content: t('sim.pay.confirmContent', {
        amount: yuan(amount),
        count: cards.length,
        name: pkg?.name ?? '',
        after: after === undefined ? '-' : yuan(after),
      }),
      okText: t('sim.pay.confirmOk'),
      onOk: pay,
    });

  return (
    <div data-testid="sim-order-summary">
      <div className={styles.summaryRow}>
        <span>{t('sim.summary.package')}</span>
        <span>{pkg ? pkg.name : <span className={styles.muted}>{t('sim.summary.nonePicked')}</span>}</span>
      </div>
      {pkg && (
        <div className={styles.summaryRow}>
          <span>{t('sim.summary.content')}</span>
          <span>
            {formatMb(pkg.flow_mb)} · {validityText(t, pkg)}
          </span>
        </div>
      )}
      <div className={styles.summaryRow}>
        <span>{t('sim.summary.cards')}</span>
        <span>{cards.length}</span>
      </div>
      {lines.length > 0 && (
        <div className={styles.summaryCards}>
          {lines.map((l) => (
            <div key={l.card.iccid} className={styles.summaryCard}>
              <Space size={4}>
                <span className={styles.mono}>{l.card.iccid}</span>
                <OrderKindTag kind={l.kind} />
              </Space>
              <span
                className={styles.nowrap}
                style={{ marginLeft: 'auto' }}
                title={t('sim.summary.newExpiry')}
              >
                {l.card.expiry ? formatDate(l.card.expiry) : '-'} →{' '}
                <b data-testid="sim-preview-expiry">{formatDate(l.expiry)}</b>
              </span>
            </div>
          ))}
        </div>
      )}
      {pkg && lines.length > 0 && (
        <div className={styles.summaryRow}>
          <span>{t('sim.summary.kind')}</span>
          <span>
            <OrderKindTag kind={orderKindOf(lines.map((l) => l.kind))} />
          </span>
        </div>
      )}
      <div className={styles.summaryRow}>
        <span>{t('sim.summary.unitPrice')}</span>
        <span>{pkg ? `${yuan(pkg.price_fen)} × ${cards.length}` : '-'}</span>
      </div>
      <Divider style={{ margin: '8px 0' }} />
      <div className={styles.summaryTotal}>
        <span>{t('sim.summary.total')}</span>
        <span data-testid="sim-order-total">{yuan(amount)}</span>
      </div>
      <div className={styles.summaryRow}>
        <span>{t('sim.summary.balance')}</span>
        <span data-testid="sim-summary-balance">{balanceFen === undefined ? '-' : yuan(balanceFen)}</span>
      </div>
      <div className={styles.summaryRow}>
        <span>{t('sim.summary.balanceAfter')}</span>
        <span className={short ? styles.danger : undefined}>{after === undefined ? '-' : yuan(after)}</span>
      </div>
      <Typography.Paragraph type="secondary" style={{ fontSize: 12, margin: '4px 0 12px' }}>
        {t('sim.summary.expiryNote')}
      </Typography.Paragraph>
      {mismatch.length > 0 && (
        <Alert
          type="warning"
          style={{ marginBottom: 12 }}
          content={t('sim.summary.operatorMismatch', {
            operator: pkg ? t(`sim.operator.${pkg.operator}`) : '',
            count: mismatch.length,
          })}
        />
      )}
      {short && (
        <Alert
          type="warning"
          style={{ marginBottom: 12 }}
          content={t('sim.pay.insufficient', { balance: yuan(balanceFen ?? 0), amount: yuan(amount) })}
        />
      )}
      {refusal && (
        <Alert type="error" style={{ marginBottom: 12 }} content={refusal} data-testid="sim-pay-refusal" />
      )}
      <Button type="primary" long size="large" disabled={!ready} loading={create.isPending} onClick={confirm}>
        {pkg && cards.length > 0 ? t('sim.pay.button', { amount: yuan(amount) }) : t('sim.pay.pick')}
      </Button>
    </div>
  );
}
