import { Badge, Select, Space } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useDeviceOptions } from '../api';

/** One of the caller's devices by sn or name (server-side search, 50 at a time); the value is the sn. */
export function DeviceSelect({
  value,
  onChange,
  placeholder,
  error,
}: {
  value?: string;
  onChange?: (sn: string | undefined) => void;
  placeholder: string;
  error?: boolean;
}) {
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  const { data, isFetching } = useDeviceOptions(keyword);
  const options = data?.data ?? [];
  const known = options.some((d) => d.sn === value);
  return (
    <Select
      showSearch
      allowClear
      filterOption={false}
      loading={isFetching}
      placeholder={placeholder}
      value={value}
      status={error ? 'error' : undefined}
      onChange={(v: string | undefined) => onChange?.(v || undefined)}
      onSearch={setInput}
      data-testid="alert-device-select"
    >
      {value && !known ? (
        <Select.Option key={value} value={value}>
          {value}
        </Select.Option>
      ) : null}
      {options.map((d) => (
        <Select.Option key={d.sn} value={d.sn}>
          <Space size={6}>
            <Badge status={d.online === 1 ? 'success' : 'default'} />
            <span>{d.sn}</span>
            {d.name ? <span style={{ color: 'var(--color-text-3)' }}>{d.name}</span> : null}
          </Space>
        </Select.Option>
      ))}
    </Select>
  );
}
