import { Badge, Select, Space } from '@arco-design/web-react';
import type { DeviceItem } from '@cellhub/contract/devices';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { http } from '../lib/request';

/** The caller's devices matching a keyword (and a product, when given), for the target picker. */
function useDeviceOptions(keyword: string, productKey?: string) {
  return useQuery({
    queryKey: ['device-picker-options', keyword, productKey],
    queryFn: () =>
      http.list<DeviceItem>('/api/devices', {
        current: 1,
        per_page: 50,
        keyword: keyword || undefined,
        product_key: productKey,
      }),
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

/**
 * Picks several of the caller's devices by sn, name, IMEI or ICCID (server-side search, 50 at a time).
 * Shared by the configuration-template and user-command pages; texts come as props so it stays feature-free.
 */
export default function DevicePicker({
  value,
  onChange,
  placeholder,
  onlineText,
  offlineText,
  productKey,
}: {
  value: string[];
  onChange: (sns: string[]) => void;
  placeholder: string;
  onlineText: string;
  offlineText: string;
  /** Only devices of this product (OTA targets). */
  productKey?: string;
}) {
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  const { data, isFetching } = useDeviceOptions(keyword, productKey);
  return (
    <Select
      mode="multiple"
      showSearch
      allowClear
      filterOption={false}
      loading={isFetching}
      placeholder={placeholder}
      value={value}
      onChange={(v: string[]) => onChange(v)}
      onSearch={setInput}
      data-testid="device-picker"
      style={{ width: '100%' }}
    >
      {(data?.data ?? []).map((d) => (
        <Select.Option key={d.sn} value={d.sn}>
          <Space size={8}>
            <Badge status={d.online === 1 ? 'success' : 'default'} />
            <span>{d.sn}</span>
            {d.name && <span style={{ color: 'var(--color-text-3)' }}>{d.name}</span>}
            <span style={{ color: 'var(--color-text-3)' }}>{d.online === 1 ? onlineText : offlineText}</span>
          </Space>
        </Select.Option>
      ))}
    </Select>
  );
}
