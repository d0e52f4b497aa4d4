import { Select } from '@arco-design/web-react';
import { useState } from 'react';
import { useDeviceOptions } from '../api';

/** One of the caller's devices by sn, searched on the server (name, sn, IMEI), optionally of one product. */
export function DeviceSelect({
  value,
  onChange,
  productKey,
  placeholder,
  testId,
}: {
  value?: string;
  onChange: (sn: string, productKey?: string) => void;
  productKey?: string | null;
  placeholder?: string;
  testId?: string;
}) {
  const [keyword, setKeyword] = useState('');
  const q = useDeviceOptions(keyword, productKey);
  const items = q.data?.data ?? [];
  const options = items.map((d) => ({
    value: d.sn,
    label: d.name && d.name !== d.sn ? `${d.name} (${d.sn})` : d.sn,
  }));
  if (value && !options.some((o) => o.value === value)) options.unshift({ value, label: value });
  return (
    <Select
      showSearch
      allowClear
      value={value || undefined}
      placeholder={placeholder}
      filterOption={false}
      onSearch={setKeyword}
      loading={q.isFetching}
      options={options}
      data-testid={testId}
      onChange={(sn: string | undefined) => onChange(sn ?? '', items.find((d) => d.sn === sn)?.product_key)}
    />
  );
}
