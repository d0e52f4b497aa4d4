import type { SimCardItem } from '@cellhub/contract/sim';
import { Select, Space } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useCardList } from '../api';
import locale from '../locale';
import { formatDate } from '../sim-format';
import styles from '../pages/sim.module.css';

/**
 * Picks several of the caller's cards by ICCID, phone, IMSI or device SN (searched on the server, 50 at a time).
 * Every card seen is reported through `onSeen`, so the page knows the operator, package and expiry of each pick.
 */
export function CardPicker({
  value,
  onChange,
  onSeen,
}: {
  value: string[];
  onChange: (iccids: string[]) => void;
  onSeen: (cards: SimCardItem[]) => void;
}) {
  const t = useLocale(locale);
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  const { data, isFetching } = useCardList({ current: 1, per_page: 50, keyword: keyword || undefined });
  useEffect(() => {
    if (data?.data.length) onSeen(data.data);
  }, [data, onSeen]);

  return (
    <Select
      mode="multiple"
      showSearch
      allowClear
      filterOption={false}
      loading={isFetching}
      placeholder={t('sim.buy.cardsPlaceholder')}
      value={value}
      onChange={(v: string[]) => onChange(v)}
      onSearch={setInput}
      maxTagCount={8}
      renderFormat={(_, v) => String(v)}
      data-testid="sim-card-picker"
      style={{ width: '100%' }}
      notFoundContent={<div style={{ padding: 12 }}>{t('sim.card.empty')}</div>}
    >
      {(data?.data ?? []).map((c) => (
        <Select.Option key={c.iccid} value={c.iccid}>
          <Space size={8}>
            <span className={styles.mono}>{c.iccid}</span>
            {c.phone && <span className={styles.muted}>{c.phone}</span>}
            <span className={styles.muted}>{t(`sim.operator.${c.operator}`)}</span>
            <span className={styles.muted}>{c.package_name ?? t('sim.noPackage')}</span>
            {c.expiry && (
              <span className={styles.muted}>{t('sim.buy.until', { date: formatDate(c.expiry) })}</span>
            )}
          </Space>
        </Select.Option>
      ))}
    </Select>
  );
}
