import type { BalanceAccountItem } from '@cellhub/contract/sim';
import { Select } from '@arco-design/web-react';
import { useEffect, useState, type CSSProperties } from 'react';
import { useBalanceAccounts } from '../api';
import { yuan } from '../sim-format';

/**
 * Admin: picks a user account by name (GET /api/balance/accounts, searched on the server), showing each balance.
 * `value` is the uid.
 */
export function AccountSelect({
  value,
  onChange,
  onPick,
  placeholder,
  allowClear = true,
  style,
  id,
  knownLabel,
}: {
  value?: number | null;
  onChange?: (uid: number | undefined) => void;
  /** The picked account itself (name and balance), for texts that need them. */
  onPick?: (account: BalanceAccountItem | undefined) => void;
  placeholder?: string;
  allowClear?: boolean;
  style?: CSSProperties;
  id?: string;
  /** The name of the account in `value` when it is not among the options loaded (first 50, or a search). */
  knownLabel?: string | null;
}) {
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  const { data, isFetching } = useBalanceAccounts({
    current: 1,
    per_page: 50,
    keyword: keyword || undefined,
  });
  return (
    <Select
      id={id}
      showSearch
      allowClear={allowClear}
      filterOption={false}
      loading={isFetching}
      placeholder={placeholder}
      value={value ?? undefined}
      onChange={(v: number | undefined) => {
        onChange?.(v ?? undefined);
        onPick?.(data?.data.find((a) => a.uid === v));
      }}
      onSearch={setInput}
      style={{ width: '100%', ...style }}
      data-testid="sim-account-select"
      options={[
        ...(value && knownLabel && !data?.data.some((a) => a.uid === value)
          ? [{ value, label: knownLabel }]
          : []),
        ...(data?.data ?? []).map((a) => ({
          value: a.uid,
          label: `${a.username} (${yuan(a.balance_fen)})`,
        })),
      ]}
    />
  );
}
