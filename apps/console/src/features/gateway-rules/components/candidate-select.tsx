import type { GatewayCandidate } from '@cellhub/contract/gateway-rules';
import { Badge, Select, Space } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useGatewayCandidates } from '../api';

/**
 * Picks devices a rule may take (server-side search, 50 at a time): gateway-type devices without a rule, or
 * sub-devices bound to no gateway. `mode="multiple"` picks several sns.
 */
export function CandidateSelect({
  nodetype,
  value,
  onChange,
  placeholder,
  onlineText,
  offlineText,
  multiple,
  testId,
}: {
  nodetype: 'gateway' | 'sub_device';
  value?: string | string[];
  onChange?: (value: string | string[]) => void;
  placeholder: string;
  onlineText: string;
  offlineText: string;
  multiple?: boolean;
  testId?: string;
}) {
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  const query = useGatewayCandidates(nodetype, keyword);
  const options: GatewayCandidate[] = query.data ?? [];
  return (
    <Select
      showSearch
      allowClear
      mode={multiple ? 'multiple' : undefined}
      filterOption={false}
      value={value}
      onChange={(v: string | string[]) => onChange?.(v)}
      onSearch={setInput}
      loading={query.isFetching}
      placeholder={placeholder}
      data-testid={testId}
      notFoundContent={query.isFetching ? undefined : <span />}
    >
      {options.map((d) => (
        <Select.Option key={d.sn} value={d.sn}>
          <Space size={8}>
            <Badge status={d.online === 1 ? 'success' : 'default'} />
            <span>{d.sn}</span>
            {d.name ? <span style={{ color: 'var(--color-text-3)' }}>{d.name}</span> : null}
            <span style={{ color: 'var(--color-text-3)' }}>
              {d.product_name || d.product_key} · {d.online === 1 ? onlineText : offlineText}
            </span>
          </Space>
        </Select.Option>
      ))}
    </Select>
  );
}
