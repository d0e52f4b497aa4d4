import type { DeviceListItem } from '@cellhub/contract/devices';
import { Button, Dropdown, Menu, Message } from '@arco-design/web-react';
import { IconDownload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import type { Translate } from '../../../lib/i18n';
import { EXPORT_LIMIT, fetchForExport, type DeviceFilter } from '../api';
import { cellText, type DeviceColumn } from '../device-columns';
import { download, exportFileName, toCsv, toXlsx, type ExportFormat } from '../export-devices';

/**
 * The device list's Export button: every device the filter matches (up to EXPORT_LIMIT), in the columns shown,
 * as CSV or Excel. The button counts the rows read while it works.
 */
export function ExportMenu({
  filter,
  total,
  columns,
  t,
}: {
  filter: DeviceFilter;
  /** The list's total, for the first progress text. */
  total: number;
  columns: readonly DeviceColumn[];
  t: Translate;
}) {
  const [exporting, setExporting] = useState<string | null>(null);
  const onlineText = (o: 0 | 1) => (o ? t('device.online') : t('device.offline'));

  const runExport = async (format: ExportFormat) => {
    setExporting(t('device.export.progress', { loaded: 0, total }));
    try {
      const {
        rows,
        total: matched,
        totalExact,
      } = await fetchForExport(filter, (loaded, of) =>
        setExporting(t('device.export.progress', { loaded, total: of })),
      );
      if (rows.length === 0) {
        Message.info(t('device.export.empty'));
        return;
      }
      const table = {
        headers: columns.map((c) => t(`device.col.${c}`)),
        rows: rows.map((r: DeviceListItem) => columns.map((c) => cellText(r, c, onlineText))),
      };
      download(await (format === 'csv' ? toCsv(table) : toXlsx(table)), exportFileName(format));
      if (matched > rows.length) {
        Message.warning({
          content: totalExact
            ? t('device.export.truncated', { total: matched, limit: EXPORT_LIMIT })
            : t('device.export.truncatedMany', { limit: EXPORT_LIMIT }),
          duration: 8000,
        });
      } else Message.success(t('device.export.done', { count: rows.length }));
    } catch {
      // The request layer has shown why.
    } finally {
      setExporting(null);
    }
  };

  return (
    <Dropdown
      droplist={
        <Menu onClickMenuItem={(key) => void runExport(key as ExportFormat)}>
          <Menu.Item key="csv">{t('device.export.csv')}</Menu.Item>
          <Menu.Item key="xlsx">{t('device.export.xlsx')}</Menu.Item>
        </Menu>
      }
      disabled={exporting !== null}
    >
      <Button icon={<IconDownload />} loading={exporting !== null}>
        {exporting ?? t('device.export')}
      </Button>
    </Dropdown>
  );
}
