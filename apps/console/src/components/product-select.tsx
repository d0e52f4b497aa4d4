import { Form, Grid, Select } from '@arco-design/web-react';
import type { ProductItem } from '@cellhub/contract/products';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { type CSSProperties, type ReactNode, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { http } from '../lib/request';
import { CellSpan } from './list-search-bar';

/** Products one request of the picker asks for; scrolling to the end of the list asks for the next page. */
export const PRODUCT_PICK_PAGE = 50;
/** How long the picker waits after the last keystroke before it asks the server. */
const SEARCH_DEBOUNCE_MS = 250;

/** Products matching `keyword` (name or ProductKey, on the server), a page at a time. */
export function useProductSearch(keyword: string, enabled = true) {
  return useInfiniteQuery({
    queryKey: ['products', 'picker', keyword],
    enabled,
    initialPageParam: 1,
    queryFn: ({ pageParam }) =>
      http.list<ProductItem>('/api/products', {
        current: pageParam,
        per_page: PRODUCT_PICK_PAGE,
        ...(keyword ? { keyword } : {}),
      }),
    getNextPageParam: (last, pages) =>
      pages.reduce((n, p) => n + p.data.length, 0) < last.total ? pages.length + 1 : undefined,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

export interface PickedProduct {
  product_key: string;
  name: string;
}

export interface ProductSelectProps {
  value?: string | string[];
  onChange?: (value: string | string[] | undefined) => void;
  /** Several products (`value` is then an array). */
  multiple?: boolean;
  /** Names of products already chosen (an edited record's), shown while they are not among the loaded results. */
  known?: PickedProduct[];
  /** Called with the chosen product (single mode), e.g. to show its name elsewhere. */
  onPick?: (product: PickedProduct | undefined) => void;
  /** Option text: "name (ProductKey)" (default) or the name only (compact filters). */
  labels?: 'name-key' | 'name';
  placeholder?: string;
  disabled?: boolean;
  allowClear?: boolean;
  style?: CSSProperties;
  'data-testid'?: string;
}

/**
 * The product picker of every form and filter: typing searches the server by name or ProductKey (so a fleet of any
 * size can pick any product), and scrolling to the end of the list loads the next page. The first page loads when
 * the list opens, or at once when a value is set (to show its name).
 */
export default function ProductSelect({
  value,
  onChange,
  multiple,
  known,
  onPick,
  labels = 'name-key',
  placeholder,
  disabled,
  allowClear,
  style,
  'data-testid': testId,
}: ProductSelectProps) {
  const [input, setInput] = useState('');
  const [keyword, setKeyword] = useState('');
  const [opened, setOpened] = useState(false);
  const hasValue = Array.isArray(value) ? value.length > 0 : !!value;
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(input.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [input]);
  const query = useProductSearch(keyword, opened || hasValue);
  // Names seen in any loaded page, so a chosen product keeps its label after the search moved on.
  const names = useRef(new Map<string, string>());
  for (const p of known ?? []) if (p.name) names.current.set(p.product_key, p.name);
  const loaded = useMemo(() => (query.data?.pages ?? []).flatMap((p) => p.data), [query.data]);
  for (const p of loaded) names.current.set(p.product_key, p.name);

  const label = (key: string) => {
    const name = names.current.get(key);
    if (!name) return key;
    return labels === 'name' ? name : `${name} (${key})`;
  };
  const chosen = Array.isArray(value) ? value : value ? [value] : [];
  const options = [
    ...chosen
      .filter((k) => !loaded.some((p) => p.product_key === k))
      .map((k) => ({ value: k, label: label(k) })),
    ...loaded.map((p) => ({ value: p.product_key, label: label(p.product_key) })),
  ];

  const onPopupScroll = (el: HTMLElement) => {
    if (
      el.scrollTop + el.clientHeight >= el.scrollHeight - 24 &&
      query.hasNextPage &&
      !query.isFetchingNextPage
    ) {
      void query.fetchNextPage();
    }
  };

  return (
    <Select
      value={value}
      mode={multiple ? 'multiple' : undefined}
      onChange={(v: string | string[] | undefined) => {
        onChange?.(v);
        if (!multiple) {
          const key = typeof v === 'string' ? v : undefined;
          onPick?.(key ? { product_key: key, name: names.current.get(key) ?? key } : undefined);
        }
      }}
      options={options}
      showSearch
      filterOption={false}
      onSearch={(v: string) => setInput(v)}
      onVisibleChange={(visible) => {
        if (visible) setOpened(true);
        else setInput('');
      }}
      onPopupScroll={onPopupScroll}
      loading={query.isFetching}
      placeholder={placeholder}
      disabled={disabled}
      allowClear={allowClear}
      style={style}
      data-testid={testId}
    />
  );
}

/** The product filter of a list page's search bar (beside ChoiceFilter and KeywordFilter). */
export function ProductFilter({
  label,
  field = 'product_key',
  placeholder,
  span,
}: {
  label: ReactNode;
  field?: string;
  placeholder: string;
  span?: number;
}) {
  const cell = useContext(CellSpan);
  return (
    <Grid.Col span={span ?? cell}>
      <Form.Item label={label} field={field}>
        <ProductSelect allowClear labels="name" placeholder={placeholder} />
      </Form.Item>
    </Grid.Col>
  );
}
