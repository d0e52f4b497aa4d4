import { Button, Message } from '@arco-design/web-react';
import { IconDownload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { downloadCardExport, type CardListParams } from '../api';
import locale from '../locale';

/** Export of a card list as CSV: every card its filters match (the page it shows does not matter). */
export function CardExportButton({ params, scope }: { params: CardListParams; scope: 'mine' | 'admin' }) {
  const t = useLocale(locale);
  const [exporting, setExporting] = useState(false);
  const runExport = async () => {
    setExporting(true);
    try {
      const { current: _c, per_page: _p, ...filter } = params;
      await downloadCardExport(filter, scope);
      Message.success(t('sim.export.done'));
    } catch (e) {
      Message.error((e as Error).message);
    } finally {
      setExporting(false);
    }
  };
  return (
    <Button icon={<IconDownload />} loading={exporting} onClick={() => void runExport()}>
      {t('sim.export')}
    </Button>
  );
}
