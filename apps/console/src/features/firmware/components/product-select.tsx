import { Select } from '@arco-design/web-react';
import { useMemo, useState } from 'react';
import { useProductOptions } from '../api';

/**
 * A product chosen by name or ProductKey, searched on the server (admins see every product). `current` keeps the
 * selected product listed when it is not among the first results (or no longer exists).
 */
export default function ProductSelect({
  value,
  onChange,
  current,
  placeholder,
  disabled,
  allowClear,
  style,
}: {
  value?: string;
  onChange?: (value: string | undefined) => void;
  current?: { product_key: string; product_name: string };
  placeholder?: string;
  disabled?: boolean;
  allowClear?: boolean;
  style?: React.CSSProperties;
}) {
  const [keyword, setKeyword] = useState('');
  const { data, isFetching } = useProductOptions(keyword);
  const options = useMemo(() => {
    const list = (data?.data ?? []).map((p) => ({
      value: p.product_key,
      label: `${p.name} (${p.product_key})`,
    }));
    if (current && !list.some((o) => o.value === current.product_key)) {
      list.unshift({
        value: current.product_key,
        label: current.product_name
          ? `${current.product_name} (${current.product_key})`
          : current.product_key,
      });
    }
    return list;
  }, [data, current]);
  return (
    <Select
      value={value}
      onChange={(v: string | undefined) => onChange?.(v)}
      options={options}
      showSearch
      filterOption={false}
      onSearch={(v) => setKeyword(v.trim())}
      loading={isFetching}
      placeholder={placeholder}
      disabled={disabled}
      allowClear={allowClear}
      style={style}
    />
  );
}
