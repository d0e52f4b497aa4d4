import { Button, Modal, Space } from '@arco-design/web-react';
import { IconPrinter } from '@arco-design/web-react/icon';
import { lazy, Suspense, useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { useLocale } from '../../../../lib/i18n';
import locale from '../../locale/detail-index';
import styles from './detail.module.css';

// The QR code library loads after the page's content: the card sits below the device's information, and its
// code is drawn once the first frame with that information has been painted.
const QrCodeSvgLazy = lazy(() => import('../../../../components/qr-code-svg'));

/** True from the first task after the first painted frame (a frame callback, then a task). */
function useAfterPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  return painted;
}

/** The code, or an empty square of its size until the QR chunk is there (so the card does not jump). */
function QrCodeSvg({ value, size }: { value: string; size: number }) {
  const painted = useAfterPaint();
  const blank = <div style={{ width: size, height: size }} data-testid="device-qr-loading" />;
  if (!painted) return blank;
  return (
    <Suspense fallback={blank}>
      <QrCodeSvgLazy value={value} size={size} />
    </Suspense>
  );
}

/** The public page a phone opens from the label: no sign-in, only what is safe to show. */
export const qrUrl = (sn: string) => `${window.location.origin}/qrcode/d/${encodeURIComponent(sn)}`;

function Label({ sn, name, product }: { sn: string; name: string; product: string }) {
  return (
    <div className={styles.label}>
      <QrCodeSvg value={qrUrl(sn)} size={132} />
      <div className={styles.labelText}>
        <span className={styles.labelSn}>{sn}</span>
        {name && <span>{name}</span>}
        {product && <span>{product}</span>}
      </div>
    </div>
  );
}

/** The QR code card body: the code, its URL and a printable label (sn and name beside the code). */
export default function QrLabel({ sn, name, product }: { sn: string; name: string; product: string }) {
  const t = useLocale(locale);
  const [open, setOpen] = useState(false);
  const [printing, setPrinting] = useState(false);

  useEffect(() => {
    if (!printing) return;
    document.body.classList.add('device-label-printing');
    const done = () => setPrinting(false);
    window.addEventListener('afterprint', done);
    // Printing waits until the sheet is in the page.
    const timer = setTimeout(() => window.print(), 50);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('afterprint', done);
      document.body.classList.remove('device-label-printing');
    };
  }, [printing]);

  return (
    <Space direction="vertical" size={12} align="center" style={{ width: '100%' }}>
      <QrCodeSvg value={qrUrl(sn)} size={148} />
      <div className={styles.url} data-testid="device-qr-url">
        {qrUrl(sn)}
      </div>
      <div className={styles.url}>{t('deviceDetail.qr.hint')}</div>
      <Button icon={<IconPrinter />} onClick={() => setOpen(true)}>
        {t('deviceDetail.printLabel')}
      </Button>
      <Modal
        title={t('deviceDetail.qr.title')}
        visible={open}
        onCancel={() => setOpen(false)}
        footer={
          <Button type="primary" icon={<IconPrinter />} onClick={() => setPrinting(true)}>
            {t('deviceDetail.qr.print')}
          </Button>
        }
      >
        <div style={{ display: 'flex', justifyContent: 'center' }} data-testid="device-label-preview">
          <Label sn={sn} name={name} product={product} />
        </div>
      </Modal>
      {printing &&
        createPortal(
          <div className={styles.sheet}>
            <Label sn={sn} name={name} product={product} />
          </div>,
          document.body,
        )}
    </Space>
  );
}
