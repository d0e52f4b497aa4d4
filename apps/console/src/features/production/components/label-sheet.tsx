import { Button, Empty, Modal, Spin } from '@arco-design/web-react';
import { IconPrinter } from '@arco-design/web-react/icon';
import QrCodeSvg from '../../../components/qr-code-svg';
import type { Translate } from '../../../lib/i18n';
import { useLabels } from '../api';
import styles from './label-sheet.module.css';

/**
 * A task's label sheet: per device the QR code of its public page (`/qrcode/d/<sn>`, what a phone opens when
 * scanning the label), the sn, product and hardware version. The print button prints the sheet alone (@media print).
 */
export function LabelSheet({
  taskId,
  name,
  visible,
  onClose,
  t,
}: {
  taskId: number;
  name: string;
  visible: boolean;
  onClose: () => void;
  t: Translate;
}) {
  const labels = useLabels(taskId, visible);
  const origin = window.location.origin;
  const data = labels.data;

  return (
    <Modal
      title={t('prod.labels.title', { name })}
      visible={visible}
      onCancel={onClose}
      footer={null}
      style={{ width: 'min(1100px, 94vw)' }}
      unmountOnExit
    >
      <div className={styles.printArea} data-testid="label-sheet">
        <div className={styles.toolbar}>
          <span>{data ? t('prod.labels.count', { count: data.sns.length }) : null}</span>
          <Button
            type="primary"
            icon={<IconPrinter />}
            disabled={!data?.sns.length}
            onClick={() => window.print()}
          >
            {t('prod.labels.print')}
          </Button>
        </div>
        {labels.isLoading ? (
          <Spin style={{ display: 'block', margin: 48 }} />
        ) : !data || data.sns.length === 0 ? (
          <Empty description={t('prod.labels.none')} />
        ) : (
          <div className={styles.sheet}>
            {data.sns.map((sn) => (
              <div key={sn} className={styles.label} data-sn={sn}>
                <QrCodeSvg value={`${origin}/qrcode/d/${encodeURIComponent(sn)}`} size={84} />
                <div className={styles.text}>
                  <div className={styles.sn}>{sn}</div>
                  <div>
                    <span className={styles.muted}>{t('prod.labels.product')}: </span>
                    {data.product_name}
                  </div>
                  <div>
                    <span className={styles.muted}>{t('prod.labels.hw')}: </span>
                    {data.hw_version}
                  </div>
                </div>
              </div>
            ))}
          </div>
        )}
      </div>
    </Modal>
  );
}
