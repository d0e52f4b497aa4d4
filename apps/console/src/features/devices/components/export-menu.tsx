import { Button, Dropdown, Menu, Message } from '@arco-design/web-react';
import { IconDownload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useLocaleState, type Translate } from '../../../lib/i18n';
import { EXPORT_LIMIT, fetchForExport, type DeviceFilter } from '../api';
import { exportTable, type DeviceColumn } from '../device-columns';
import { defsOf } from '../property-labels';
import { download, exportFileName, toCsv, toXlsx, type ExportFormat } from '../export-devices';

/**
 * The device list's Export button: every device the filter matches (up to EXPORT_LIMIT), in the columns shown,
 * as CSV or Excel, "latest data" as one column per property in the product's words. The button counts the rows
 * read while it works.
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
  const { locale: lang } = useLocaleState();
  const onlineText = (o: 0 | 1) => (o ? t('device.online') : t('device.offline'));

  const runExport = async (format: ExportFormat) => {
    setExporting(t('device.export.progress', { loaded: 0, total }));
    try {
      const {
        rows,
        total: matched,
        totalExact,
        defs: wireDefs,
      } = await fetchForExport(filter, (loaded, of) =>
        setExporting(t('device.export.progress', { loaded, total: of })),
      );
      if (rows.length === 0) {
        Message.info(t('device.export.empty'));
        return;
      }
      const defs = defsOf(wireDefs);
      const table = exportTable(rows, columns, {
        header: (c) => t(`device.col.${c}`),
        onlineText,
        defs,
        lang,
      });
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
