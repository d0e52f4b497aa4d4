import {
  IconCheckCircle,
  IconCloseCircle,
  IconFile,
  IconIdcard,
  IconMobile,
  IconSync,
} from '@arco-design/web-react/icon';
import { formatFen } from '@cellhub/contract/sim';
import { Fragment, type ReactNode } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../pages/workplace-page.module.css';
import own from './overview-stats.module.css';

/**
 * The Workplace figures of seed section 1, from /api/dashboard/overview: devices, and the SIM part (balance in fen,
 * orders, cards by operator, cards expiring within 30 days). A figure not loaded yet shows a dash.
 */
export interface Overview {
  /** The caller's balance in fen (shown as yuan). */
  balanceFen?: number;
  pendingOrders?: number;
  renewalOrders?: number;
  simTotal?: number;
  deviceTotal?: number;
  deviceOnline?: number;
  deviceOffline?: number;
  simByOperator?: { cmcc: number; cucc: number; ctcc: number };
  /** Cards whose package expires within 30 days. */
  simExpiring?: number;
}

const NONE = '--';

function Stat({
  icon,
  color,
  label,
  value,
  unit,
  testId,
  sub,
}: {
  icon: ReactNode;
  color: string;
  label: string;
  value: ReactNode;
  unit?: string;
  testId?: string;
  /** A small line under the figure (cards expiring soon). */
  sub?: ReactNode;
}) {
  return (
    <div className={`${styles.stat} ${own.compact}`} data-testid={testId}>
      <div
        className={styles.statIcon}
        style={{ color: `rgb(var(--${color}-6))`, background: `rgb(var(--${color}-1))` }}
      >
        {icon}
      </div>
      <div className={own.text}>
        <div className={`${styles.statLabel} ${own.label}`} title={label}>
          {label}
        </div>
        <div className={styles.statValue}>
          <span data-testid={testId && `${testId}-value`}>{value}</span>
          {unit && value !== NONE && <span className={styles.statUnit}>{unit}</span>}
        </div>
        {sub}
      </div>
    </div>
  );
}

export default function OverviewStats({ data }: { data: Overview }) {
  const t = useLocale(locale);
  const n = (v: number | undefined) => (v === undefined ? NONE : v.toLocaleString());
  const ops = data.simByOperator;
  return (
    <div className={styles.stats}>
      <Stat
        icon={<span className={styles.yuan}>¥</span>}
        color="orange"
        label={t('workplace.balance')}
        value={data.balanceFen === undefined ? NONE : `¥${formatFen(data.balanceFen)}`}
        testId="stat-balance"
      />
      <Stat
        icon={<IconFile />}
        color="primary"
        label={t('workplace.pendingOrders')}
        value={n(data.pendingOrders)}
        unit={t('workplace.unit.order')}
        testId="stat-pending-orders"
      />
      <Stat
        icon={<IconSync />}
        color="purple"
        label={t('workplace.renewalOrders')}
        value={n(data.renewalOrders)}
        unit={t('workplace.unit.order')}
        testId="stat-renewal-orders"
      />
      <Stat
        icon={<IconIdcard />}
        color="cyan"
        label={t('workplace.simTotal')}
        value={n(data.simTotal)}
        unit={t('workplace.unit.card')}
        testId="stat-sim-total"
        sub={
          data.simExpiring !== undefined && (
            <div
              className={styles.statSub}
              title={t('workplace.simExpiring.hint')}
              style={data.simExpiring > 0 ? { color: 'rgb(var(--danger-6))' } : undefined}
              data-testid="stat-sim-expiring"
            >
              {t('workplace.simExpiring', { count: data.simExpiring })}
            </div>
          )
        }
      />
      <Stat
        icon={<IconMobile />}
        color="primary"
        label={t('workplace.deviceTotal')}
        value={n(data.deviceTotal)}
        testId="stat-device-total"
        unit={t('workplace.unit.count')}
      />
      <Stat
        icon={<IconCheckCircle />}
        color="green"
        label={t('workplace.deviceOnline')}
        value={n(data.deviceOnline)}
        testId="stat-device-online"
        unit={t('workplace.unit.count')}
      />
      <Stat
        icon={<IconCloseCircle />}
        color="gray"
        label={t('workplace.deviceOffline')}
        value={n(data.deviceOffline)}
        testId="stat-device-offline"
        unit={t('workplace.unit.count')}
      />
      <Stat
        icon={<IconIdcard />}
        color="gold"
        label={t('workplace.simByOperator')}
        testId="stat-sim-operators"
        value={
          ops ? (
            // Each count beside its operator's name: "10 / 2 / 0" alone never said which was which.
            <span className={own.operators}>
              {(['cmcc', 'cucc', 'ctcc'] as const).map((op) => (
                <Fragment key={op}>
                  <span className={own.operatorName}>{t(`workplace.operator.${op}`)}</span>
                  <span className={own.operatorCount} data-testid={`stat-sim-operator-${op}`}>
                    {ops[op].toLocaleString()}
                  </span>
                </Fragment>
              ))}
            </span>
          ) : (
            NONE
          )
        }
      />
    </div>
  );
}
