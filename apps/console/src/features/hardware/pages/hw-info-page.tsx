import type { HwInfoItem } from '@cellhub/contract/hardware';
import { Badge, Button, Popover, Space, Tag, Tooltip, type TableColumnProps } from '@arco-design/web-react';
import { IconDownload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { exportHwInfo, useHwInfo, type HwInfoParams } from '../api';
import locale from '../locale';

const muted = { color: 'var(--color-text-3)' };

/** /hw/info (any role): what devices reported about their hardware and factory test; admins see every device. */
export default function HwInfoPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<HwInfoParams>();
  const query = useHwInfo(params);
  const [exporting, setExporting] = useState(false);

  const columns: TableColumnProps<HwInfoItem>[] = [
    { title: t('hw.info.sn'), dataIndex: 'sn', width: 190 },
    { title: t('hw.info.imei'), dataIndex: 'imei', width: 160, render: (v: string) => v || '-' },
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
      title: t('hw.info.module'),
      dataIndex: 'module_model',
      width: 210,
      render: (_: unknown, r) => (
        <div>
          <div>{r.module_model || '-'}</div>
          <div style={{ ...muted, fontSize: 12 }}>{r.module_fw}</div>
        </div>
      ),
    },
    { title: t('hw.info.mcu'), dataIndex: 'mcu_id', width: 110, render: (v: string) => v || '-' },
    { title: t('hw.info.mac'), dataIndex: 'mac', width: 150, render: (v: string) => v || '-' },
    { title: t('hw.info.board'), dataIndex: 'board_revision', width: 110, render: (v: string) => v || '-' },
    { title: t('hw.info.lastAt'), dataIndex: 'last_at', width: 180, render: (v: string) => formatTime(v) },
  ];

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
      tableProps={{ scroll: { x: 1240 } }}
    />
  );
}
