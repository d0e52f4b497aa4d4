import type { HwInfoItem } from '@cellhub/contract/hardware';
import {
  Badge,
  Button,
  Checkbox,
  Popover,
  Space,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconSettings } from '@arco-design/web-react/icon';
import { type CSSProperties, useState } from 'react';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { exportHwInfo, useHwInfo, type HwInfoParams } from '../api';
import locale from '../locale';

const muted = { color: 'var(--color-text-3)' };

/** Columns the column setting can hide or show; MCU ID and MAC (one column) are hidden until asked for. */
const OPTIONAL_COLUMNS = ['mcu_mac', 'board_revision'] as const;
type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];
const DEFAULT_COLUMNS: OptionalColumn[] = ['board_revision'];
const COLUMN_LABEL: Record<OptionalColumn, string[]> = {
  mcu_mac: ['hw.info.mcu', 'hw.info.mac'],
  board_revision: ['hw.info.board'],
};
export const COLUMNS_KEY = 'cellhub.hw-info.columns';

function readColumns(): OptionalColumn[] {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(COLUMNS_KEY) ?? 'null');
    if (Array.isArray(saved)) return OPTIONAL_COLUMNS.filter((c) => saved.includes(c));
  } catch {
    // A broken value: the defaults.
  }
  return DEFAULT_COLUMNS;
}

/** One line that ends in an ellipsis when the cell is narrow, the whole text in a tooltip. */
function Clip({ text, style }: { text: string; style?: CSSProperties }) {
  if (!text) return null;
  return (
    <Tooltip content={text} mini>
      <div style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', ...style }}>
        {text}
      </div>
    </Tooltip>
  );
}

/** /hw/info (any role): what devices reported about their hardware and factory test; admins see every device. */
export default function HwInfoPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<HwInfoParams>();
  const query = useHwInfo(params);
  const [exporting, setExporting] = useState(false);

  const [shown, setShown] = useState<OptionalColumn[]>(readColumns);
  const pickColumns = (picked: OptionalColumn[]) => {
    const next = OPTIONAL_COLUMNS.filter((c) => picked.includes(c));
    setShown(next);
    localStorage.setItem(COLUMNS_KEY, JSON.stringify(next));
  };

  const all: (TableColumnProps<HwInfoItem> & { optional?: OptionalColumn })[] = [
    {
      title: `${t('hw.info.sn')} / ${t('hw.info.imei')}`,
      dataIndex: 'sn',
      width: 200,
      render: (_: unknown, r) => (
        <div>
          <Clip text={r.sn} />
          <Clip text={r.imei || '-'} style={{ ...muted, fontSize: 12 }} />
        </div>
      ),
    },
    {
      title: t('hw.info.test'),
      dataIndex: 'test_ok',
      width: 150,
      render: (_: unknown, r) => {
        const badge =
          r.test_ok === null ? (
            <Badge status="default" text={t('hw.info.test.none')} />
          ) : r.test_ok ? (
            <Badge status="success" text={t('hw.info.test.ok')} />
          ) : (
            <Badge status="error" text={t('hw.info.test.failed')} />
          );
        const mismatch = r.mismatch.length ? (
          <Tooltip
            content={t('hw.info.mismatch.field', {
              fields: r.mismatch.map((f) => t(`hw.info.field.${f}`)).join(', '),
            })}
          >
            <Tag color="orangered" size="small">
              {t('hw.info.mismatch')}
            </Tag>
          </Tooltip>
        ) : null;
        const body = (
          <Space direction="vertical" size={2}>
            {badge}
            {mismatch}
          </Space>
        );
        if (r.test_items.length === 0) return body;
        return (
          <Popover
            content={
              <Space direction="vertical" size={4}>
                {r.test_items.map((i) => (
                  <span key={i.name}>
                    <Badge status={i.ok ? 'success' : 'error'} text={i.name} />
                    {i.detail ? <span style={muted}> · {i.detail}</span> : null}
                  </span>
                ))}
              </Space>
            }
          >
            <span style={{ cursor: 'help' }}>{body}</span>
          </Popover>
        );
      },
    },
    {
      // No width: it takes what the others leave, and long model or firmware names end in an ellipsis.
      title: t('hw.info.module'),
      dataIndex: 'module_model',
      render: (_: unknown, r) => (
        <div>
          <Clip text={r.module_model || '-'} />
          <Clip text={r.module_fw} style={{ ...muted, fontSize: 12 }} />
        </div>
      ),
    },
    {
      title: `${t('hw.info.mcu')} / ${t('hw.info.mac')}`,
      dataIndex: 'mcu_id',
      width: 150,
      optional: 'mcu_mac',
      render: (_: unknown, r) => (
        <div>
          <Clip text={r.mcu_id || '-'} />
          <Clip text={r.mac || '-'} style={{ ...muted, fontSize: 12 }} />
        </div>
      ),
    },
    {
      title: t('hw.info.board'),
      dataIndex: 'board_revision',
      width: 110,
      optional: 'board_revision',
      render: (v: string) => <Clip text={v || '-'} />,
    },
    {
      title: t('hw.info.lastAt'),
      dataIndex: 'last_at',
      width: 170,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
  ];
  const columns = all
    .filter((c) => !c.optional || shown.includes(c.optional))
    .map(({ optional: _optional, ...c }) => c);

  const columnSetting = (
    <Popover
      trigger="click"
      position="br"
      title={t('hw.info.columns.title')}
      content={
        <Checkbox.Group
          direction="vertical"
          value={shown}
          onChange={(v: OptionalColumn[]) => pickColumns(v)}
          options={OPTIONAL_COLUMNS.map((c) => ({
            label: COLUMN_LABEL[c].map((k) => t(k)).join(' / '),
            value: c,
          }))}
          data-testid="hw-info-columns"
        />
      }
    >
      <Button icon={<IconSettings />} data-testid="hw-info-column-setting">
        {t('hw.info.columns')}
      </Button>
    </Popover>
  );

  return (
    <ListPage<HwInfoItem, HwInfoParams>
      title={t('hw.info.title')}
      help={t('hw.info.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('hw.info.keyword')}
            placeholder={t('hw.info.keyword.placeholder')}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      toolbarStart={
        <Button
          icon={<IconDownload />}
          loading={exporting}
          onClick={() => {
            setExporting(true);
            void exportHwInfo(params.keyword)
              .catch(() => undefined)
              .finally(() => setExporting(false));
          }}
        >
          {t('hw.info.export')}
        </Button>
      }
      rowKey="sn"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('hw.total', { total })}
      empty={<ListEmpty text={t('hw.info.empty')} />}
      toolbarEnd={columnSetting}
      // Fixed layout and no horizontal scroll: the table fits the content area (1280 px wide with the menu open).
      tableProps={{ tableLayoutFixed: true }}
    />
  );
}
