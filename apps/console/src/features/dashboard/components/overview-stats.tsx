import { Tooltip } from '@arco-design/web-react';
import {
  IconCheckCircle,
  IconCloseCircle,
  IconFile,
  IconIdcard,
  IconMobile,
  IconSync,
} from '@arco-design/web-react/icon';
import type { ReactNode } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../pages/workplace-page.module.css';

/**
 * The Workplace figures of seed section 1. Device figures come from /api/dashboard/overview; balance, orders and
 * SIM cards arrive with the SIM issue, and until then show a dash rather than a number nobody counted.
 */
export interface Overview {
  balance?: number;
  pendingOrders?: number;
  renewalOrders?: number;
  simTotal?: number;
  deviceTotal?: number;
  deviceOnline?: number;
  deviceOffline?: number;
  simByOperator?: { cmcc: number; cucc: number; ctcc: number };
}

const NONE = '--';

function Stat({
  icon,
  color,
  label,
  value,
  unit,
  testId,
}: {
  icon: ReactNode;
  color: string;
  label: string;
  value: ReactNode;
  unit?: string;
  testId?: string;
}) {
  return (
    <div className={styles.stat} data-testid={testId}>
      <div
        className={styles.statIcon}
        style={{ color: `rgb(var(--${color}-6))`, background: `rgb(var(--${color}-1))` }}
      >
        {icon}
      </div>
      <div>
        <div className={styles.statLabel}>{label}</div>
        <div className={styles.statValue}>
          {value}
          {unit && value !== NONE && <span className={styles.statUnit}>{unit}</span>}
        </div>
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
        value={data.balance === undefined ? NONE : `¥${data.balance.toFixed(2)}`}
      />
      <Stat
        icon={<IconFile />}
        color="primary"
        label={t('workplace.pendingOrders')}
        value={n(data.pendingOrders)}
        unit={t('workplace.unit.order')}
      />
      <Stat
        icon={<IconSync />}
        color="purple"
        label={t('workplace.renewalOrders')}
        value={n(data.renewalOrders)}
        unit={t('workplace.unit.order')}
      />
      <Stat
        icon={<IconIdcard />}
        color="cyan"
        label={t('workplace.simTotal')}
        value={n(data.simTotal)}
        unit={t('workplace.unit.card')}
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
        value={
          <Tooltip
            content={`${t('workplace.operator.cmcc')} / ${t('workplace.operator.cucc')} / ${t('workplace.operator.ctcc')}`}
          >
            <span>{ops ? `${ops.cmcc} / ${ops.cucc} / ${ops.ctcc}` : NONE}</span>
          </Tooltip>
        }
      />
    </div>
  );
}
