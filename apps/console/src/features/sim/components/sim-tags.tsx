import type {
  LedgerKind,
  OrderKind,
  OrderStatus,
  SimCardFlag,
  SimCardStatus,
  SimOperator,
} from '@cellhub/contract/sim';
import { Progress, Space, Tag, Tooltip } from '@arco-design/web-react';
import { IconExclamationCircle } from '@arco-design/web-react/icon';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { daysLeft, expiryState, formatDate, formatMb, usagePercent } from '../sim-format';
import styles from '../pages/sim.module.css';

const STATUS_COLOR: Record<SimCardStatus, string> = {
  inactive: 'gray',
  active: 'green',
  suspended: 'orange',
  deactivated: 'red',
  unknown: 'gray',
};

/** A card's normalised status; the operator's own value on hover when it has one. */
export function CardStatusTag({ status, raw }: { status: SimCardStatus; raw?: string | null }) {
  const t = useLocale(locale);
  const tag = (
    <Tag size="small" color={STATUS_COLOR[status]} data-testid="sim-card-status">
      {t(`sim.status.${status}`)}
    </Tag>
  );
  return raw ? <Tooltip content={t('sim.rawStatus', { raw })}>{tag}</Tooltip> : tag;
}

const FLAG_COLOR: Record<SimCardFlag, string> = {
  expired: 'red',
  exhausted: 'orangered',
  expiring: 'gold',
  swapped: 'purple',
};

/** Flags beside the status; `expiring` is left out where the expiry column already turns red. */
export function CardFlagTags({ flags, omit = [] }: { flags: SimCardFlag[]; omit?: SimCardFlag[] }) {
  const t = useLocale(locale);
  const shown = flags.filter((f) => !omit.includes(f));
  if (shown.length === 0) return null;
  return (
    <>
      {shown.map((f) => (
        <Tooltip key={f} content={t(`sim.flag.${f}.hint`)}>
          <Tag size="small" color={FLAG_COLOR[f]} bordered>
            {t(`sim.flag.${f}`)}
          </Tag>
        </Tooltip>
      ))}
    </>
  );
}

export function OperatorText({ operator }: { operator: SimOperator }) {
  const t = useLocale(locale);
  return <span className={styles.nowrap}>{t(`sim.operator.${operator}`)}</span>;
}

/**
 * The expiry date, red within 30 days and once passed; `stacked` puts the days left under the date (narrow table
 * cells), otherwise beside it.
 */
export function ExpiryText({
  expiry,
  withTime = false,
  stacked = false,
}: {
  expiry: string | null;
  withTime?: boolean;
  stacked?: boolean;
}) {
  const t = useLocale(locale);
  if (!expiry) return <span className={styles.muted}>-</span>;
  const state = expiryState(expiry);
  const text = withTime ? formatTime(expiry) : formatDate(expiry);
  if (state === 'ok') return <span className={styles.nowrap}>{text}</span>;
  const days = daysLeft(expiry);
  const note = (
    <span className={styles.small}>
      {state === 'expired' ? t('sim.expiry.expired') : t('sim.expiry.daysLeft', { days })}
    </span>
  );
  return (
    <Tooltip
      content={
        state === 'expired' ? t('sim.expiry.expiredAt', { time: formatTime(expiry) }) : formatTime(expiry)
      }
    >
      {stacked ? (
        <span className={`${styles.stack} ${styles.danger} ${styles.nowrap}`} data-testid="sim-expiry-soon">
          <span>
            <IconExclamationCircle /> {text}
          </span>
          {note}
        </span>
      ) : (
        <Space size={4} className={`${styles.danger} ${styles.nowrap}`} data-testid="sim-expiry-soon">
          <IconExclamationCircle />
          <span>{text}</span>
          {note}
        </Space>
      )}
    </Tooltip>
  );
}

/** This month's use against the allowance, as a bar with the figures under it. */
export function UsageBar({
  used,
  total,
  width = 120,
}: {
  used: number;
  total: number | null;
  width?: number;
}) {
  const percent = usagePercent(used, total);
  return (
    <div className={styles.stack} style={{ width }}>
      <span className={`${styles.small} ${styles.nowrap}`}>
        {formatMb(used)}
        {total !== null && <span className={styles.muted}> / {formatMb(total)}</span>}
      </span>
      {percent !== null && (
        <Progress
          size="small"
          showText={false}
          percent={percent}
          status={percent >= 100 ? 'error' : percent >= 80 ? 'warning' : 'normal'}
          style={{ width }}
        />
      )}
    </div>
  );
}

const ORDER_STATUS_COLOR: Record<OrderStatus, string> = {
  pending: 'arcoblue',
  paid: 'green',
  cancelled: 'gray',
  refunded: 'orange',
};

export function OrderStatusTag({ status }: { status: OrderStatus }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={ORDER_STATUS_COLOR[status]} data-testid="sim-order-status">
      {t(`sim.orderStatus.${status}`)}
    </Tag>
  );
}

const KIND_COLOR: Record<OrderKind, string> = { new: 'cyan', renew: 'purple', change: 'orange' };

export function OrderKindTag({ kind }: { kind: OrderKind }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={KIND_COLOR[kind]}>
      {t(`sim.orderKind.${kind}`)}
    </Tag>
  );
}

const LEDGER_COLOR: Record<LedgerKind, string> = { topup: 'green', order: 'arcoblue', refund: 'orange' };

export function LedgerKindTag({ kind }: { kind: LedgerKind }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={LEDGER_COLOR[kind]}>
      {t(`sim.ledgerKind.${kind}`)}
    </Tag>
  );
}
