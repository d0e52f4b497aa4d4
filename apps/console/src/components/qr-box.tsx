import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import styles from './qr-box.module.css';

// The QR encoder is the heavy part; it loads only when a box is on screen, while the ticket is being fetched.
const loadQrCode = () => import('./qr-code-svg');
const QrCodeSvg = lazy(loadQrCode);

interface Props {
  /** What the code encodes; without it the box shows `children` (a spinner, a hint). */
  value?: string;
  /** Greys the box while there is no code to scan. */
  dim?: boolean;
  /** Laid over the code when it can no longer be scanned (expired, failed), usually with a refresh button. */
  overlay?: ReactNode;
  /** The line under the box. */
  tip?: ReactNode;
  className?: string;
  children?: ReactNode;
}

/** The framed QR code of the sign-in and WeChat-binding screens. */
export function QrBox({ value, dim, overlay, tip, className, children }: Props) {
  useEffect(() => {
    void loadQrCode().catch(() => undefined);
  }, []);

  return (
    <div className={[styles.panel, className].filter(Boolean).join(' ')}>
      <div className={styles.box} data-dim={dim || undefined}>
        {value ? (
          <Suspense fallback={children ?? null}>
            <QrCodeSvg value={value} />
          </Suspense>
        ) : (
          children
        )}
        {overlay && (
          <div className={styles.overlay} role="alert">
            {overlay}
          </div>
        )}
      </div>
      {tip !== undefined && <div className={styles.tip}>{tip}</div>}
    </div>
  );
}
