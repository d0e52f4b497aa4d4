import { Badge, Select, Space, Tag } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useTransmitCandidates } from '../api';
import locale from '../locale';

/**
 * Picks devices for a rule among those the user controls (server search, 50 at a time). Each option tells whether
 * the device is online and which rules it is in already (a device may be in several rules); `exclude` greys out the
 * devices the other side of the rule holds.
 */
export default function TransmitDevicePicker({
  value,
  onChange,
  exclude = [],
  ruleId,
  testId,
}: {
  value?: string[];
  onChange?: (sns: string[]) => void;
  exclude?: string[];
  /** The rule being edited: not listed among the device's "other" rules. */
  ruleId?: number;
  testId: string;
}) {
  const t = useLocale(locale);
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  const { data, isFetching } = useTransmitCandidates(keyword);
  return (
    <Select
      mode="multiple"
      showSearch
      allowClear
      filterOption={false}
      loading={isFetching}
      placeholder={t('dt.form.picker.placeholder')}
      value={value ?? []}
      onChange={(v: string[]) => onChange?.(v)}
      onSearch={setInput}
      data-testid={testId}
      style={{ width: '100%' }}
    >
      {(data?.data ?? []).map((d) => {
        const others = d.rules.filter((r) => r.id !== ruleId);
        return (
          <Select.Option key={d.sn} value={d.sn} disabled={exclude.includes(d.sn)}>
            <Space size={8}>
              <Badge status={d.online === 1 ? 'success' : 'default'} />
              <span>{d.sn}</span>
              {d.name && <span style={{ color: 'var(--color-text-3)' }}>{d.name}</span>}
              {others.length > 0 && (
                <Tag size="small" color="arcoblue">
                  {t('dt.form.inRules', { names: others.map((r) => r.name).join(', ') })}
                </Tag>
              )}
            </Space>
          </Select.Option>
        );
      })}
    </Select>
  );
}
