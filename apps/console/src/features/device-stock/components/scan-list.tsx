/**
 * The fast-out-of-stock scanner: a barcode scanner types an sn and presses Enter, so the input adds each entered sn
 * (or every line of a pasted list) to the list and checks it at once (in stock, owned, unknown, not an sn); a line
 * listed twice is flagged without asking the server. The cue is visual only: the row's tag and a flash of the input.
 */
import type { StockCheckLine } from '@cellhub/contract/device-stock';
import { SN_RULE } from '@cellhub/contract/protocol';
import { Button, Input, Space, Table, Tag, Tooltip, type TableColumnProps } from '@arco-design/web-react';
import { IconDelete } from '@arco-design/web-react/icon';
import { useCallback, useRef, useState } from 'react';
import type { Translate } from '../../../lib/i18n';
import styles from './scan-list.module.css';

export type ScanState = StockCheckLine['state'] | 'checking' | 'duplicate' | 'error';
export interface ScanLine {
  key: number;
  sn: string;
  state: ScanState;
  product_name: string;
}

const COLORS: Record<ScanState, string> = {
  checking: 'gray',
  in_stock: 'green',
  owned: 'red',
  not_found: 'red',
  invalid: 'red',
  duplicate: 'orange',
  error: 'orangered',
};

export const splitSns = (text: string): string[] =>
  text
    .split(/[\r\n,;\t ]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The scanned lines and how to add to them; `check` asks the server about new sns. */
export function useScanList(check: (sns: string[]) => Promise<StockCheckLine[]>) {
  const [lines, setLines] = useState<ScanLine[]>([]);
  const next = useRef(1);
  // The sns on the list now, kept beside the state so a scan is judged at once (a scanner sends lines fast).
  const onList = useRef(new Map<string, number>());
  const add = useCallback(
    (sns: string[]) => {
      const fresh: ScanLine[] = [];
      const added = sns.map((sn): ScanLine => {
        const state: ScanState = onList.current.has(sn)
          ? 'duplicate'
          : !SN_RULE.test(sn)
            ? 'invalid'
            : 'checking';
        const line = { key: next.current++, sn, state, product_name: '' };
        if (!onList.current.has(sn)) onList.current.set(sn, line.key);
        if (state === 'checking') fresh.push(line);
        return line;
      });
      if (added.length === 0) return;
      setLines((prev) => [...added.reverse(), ...prev]);
      if (fresh.length === 0) return;
      const keys = new Map(fresh.map((l) => [l.sn, l.key]));
      check(fresh.map((l) => l.sn))
        .then((res) => {
          const bySn = new Map(res.map((r) => [r.sn, r]));
          setLines((prev) =>
            prev.map((l) => {
              const r = bySn.get(l.sn);
              return r && keys.get(l.sn) === l.key
                ? { ...l, state: r.state, product_name: r.product_name }
                : l;
            }),
          );
        })
        .catch(() =>
          setLines((prev) => prev.map((l) => (keys.get(l.sn) === l.key ? { ...l, state: 'error' } : l))),
        );
    },
    [check],
  );
  const remove = (key: number) =>
    setLines((prev) => {
      const gone = prev.find((l) => l.key === key);
      // The first line of an sn removed: its duplicates stay flagged, the sn may be scanned again.
      if (gone && onList.current.get(gone.sn) === key) onList.current.delete(gone.sn);
      return prev.filter((l) => l.key !== key);
    });
  const clear = () => {
    onList.current.clear();
    setLines([]);
  };
  /** The sns that may ship: checked in stock, each once. */
  const ready = lines.filter((l) => l.state === 'in_stock').map((l) => l.sn);
  return { lines, add, remove, clear, ready };
}

export function ScanInput({ t, onAdd }: { t: Translate; onAdd: (sns: string[]) => void }) {
  const [value, setValue] = useState('');
  const [flash, setFlash] = useState(false);
  const enter = () => {
    const sns = splitSns(value);
    if (sns.length === 0) return;
    onAdd(sns);
    setValue('');
    setFlash(true);
    window.setTimeout(() => setFlash(false), 400);
  };
  return (
    <Input
      autoFocus
      allowClear
      value={value}
      onChange={setValue}
      onPressEnter={enter}
      className={flash ? styles.flash : undefined}
      placeholder={t('stock.ship.scan.placeholder')}
      aria-label={t('stock.ship.scan')}
      onPaste={(e) => {
        // A pasted list of several lines is added at once.
        const text = e.clipboardData.getData('text');
        if (/[\r\n]/.test(text.trim())) {
          e.preventDefault();
          onAdd(splitSns(text));
        }
      }}
    />
  );
}

export function ScanTable({
  t,
  lines,
  onRemove,
}: {
  t: Translate;
  lines: ScanLine[];
  onRemove: (key: number) => void;
}) {
  const columns: TableColumnProps<ScanLine>[] = [
    {
      title: t('stock.col.sn'),
      dataIndex: 'sn',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    { title: t('stock.col.product'), dataIndex: 'product_name', render: (v: string) => v || '-' },
    {
      title: t('stock.ship.state'),
      dataIndex: 'state',
      width: 200,
      render: (v: ScanState) => (
        <Tag color={COLORS[v]} data-state={v}>
          {t(`stock.ship.state.${v}`)}
        </Tag>
      ),
    },
    {
      title: t('stock.col.actions'),
      dataIndex: 'key',
      width: 90,
      render: (key: number) => (
        <Tooltip content={t('stock.ship.remove')}>
          <Button
            size="mini"
            type="text"
            status="danger"
            icon={<IconDelete />}
            aria-label={t('stock.ship.remove')}
            onClick={() => onRemove(key)}
          />
        </Tooltip>
      ),
    },
  ];
  return (
    <Table<ScanLine>
      rowKey="key"
      size="small"
      columns={columns}
      data={lines}
      border={{ wrapper: true, cell: false }}
      pagination={lines.length > 50 ? { pageSize: 50, size: 'small' } : false}
      noDataElement={<Space className={styles.empty}>{t('stock.ship.empty')}</Space>}
      rowClassName={(r) => (r.state === 'in_stock' || r.state === 'checking' ? '' : (styles.bad ?? ''))}
    />
  );
}
