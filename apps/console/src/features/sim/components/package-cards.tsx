import type { PackageItem } from '@cellhub/contract/sim';
import { Empty, Tag, Tooltip } from '@arco-design/web-react';
import { IconCheckCircleFill } from '@arco-design/web-react/icon';
import { useLocale, type Translate } from '../../../lib/i18n';
import locale from '../locale';
import { formatMb, yuan } from '../sim-format';
import styles from '../pages/sim.module.css';

export function validityText(t: Translate, p: Pick<PackageItem, 'validity_unit' | 'validity_count'>): string {
  return t(`sim.validity.${p.validity_unit}`, { count: p.validity_count });
}

/** "1 GB / month" for monthly packages, "1 GB in total" for pools. */
export function flowText(t: Translate, p: Pick<PackageItem, 'flow_mb' | 'type'>): string {
  return t(`sim.flow.${p.type}`, { flow: formatMb(p.flow_mb) });
}

/**
 * The packages a buyer picks from, as cards: name, flow, validity and the price in yuan. A package that does not fit
 * the chosen cards (another operator) stays visible but disabled, with the reason on hover.
 */
export function PackageCards({
  packages,
  value,
  onChange,
  disabledReason,
  currentIds,
}: {
  packages: PackageItem[];
  value?: number;
  onChange: (id: number) => void;
  disabledReason?: (p: PackageItem) => string | undefined;
  /** Packages the chosen cards are on now (marked "current": buying one again renews it). */
  currentIds?: ReadonlySet<number>;
}) {
  const t = useLocale(locale);
  if (packages.length === 0) return <Empty description={t('sim.package.noneOnSale')} />;
  return (
    <div className={styles.packageGrid} role="radiogroup" aria-label={t('sim.buy.choosePackage')}>
      {packages.map((p) => {
        const reason = disabledReason?.(p);
        const selected = value === p.id;
        const card = (
          <button
            key={p.id}
            type="button"
            role="radio"
            aria-checked={selected}
            aria-disabled={!!reason}
            data-testid="sim-package-card"
            className={[styles.packageCard, selected && styles.selected, reason && styles.disabled]
              .filter(Boolean)
              .join(' ')}
            onClick={() => !reason && onChange(p.id)}
          >
            <span className={styles.packageBadge}>
              {selected ? (
                <IconCheckCircleFill style={{ color: 'rgb(var(--primary-6))', fontSize: 18 }} />
              ) : currentIds?.has(p.id) ? (
                <Tag size="small" color="purple">
                  {t('sim.package.current')}
                </Tag>
              ) : null}
            </span>
            <span className={styles.packageName}>{p.name}</span>
            <span className={styles.packageFlow}>{formatMb(p.flow_mb)}</span>
            <span className={styles.packageMeta}>
              {flowText(t, p)} · {validityText(t, p)}
            </span>
            <span className={styles.packageMeta}>
              {t(`sim.operator.${p.operator}`)} · {p.code}
            </span>
            <span className={styles.packagePrice}>{yuan(p.price_fen)}</span>
            {p.remark && <span className={styles.packageMeta}>{p.remark}</span>}
          </button>
        );
        return reason ? (
          <Tooltip key={p.id} content={reason}>
            {card}
          </Tooltip>
        ) : (
          card
        );
      })}
    </div>
  );
}
