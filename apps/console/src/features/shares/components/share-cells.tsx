/** Cells the share tabs have in common. */
import { Button } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty } from '../../../components/list-page';
import { RowLink } from '../../../components/row-actions';
import type { Translate } from '../../../lib/i18n';
import styles from './share-cells.module.css';

/** The detail page of a device (`/device/detail/:productKey/:sn`). */
export const deviceUrl = (sn: string, productKey: string) =>
  `/device/detail/${encodeURIComponent(productKey)}/${encodeURIComponent(sn)}`;

/** A device as the share lists show it: its serial number (linked to its page) over its name. */
export function DeviceCell({
  sn,
  name,
  productKey,
  link = true,
}: {
  sn: string;
  name: string;
  productKey: string;
  link?: boolean;
}) {
  return (
    <div className={styles.stack}>
      {link ? (
        <RowLink to={deviceUrl(sn, productKey)} className={styles.mono}>
          {sn}
        </RowLink>
      ) : (
        <span className={styles.mono}>{sn}</span>
      )}
      {name ? <span className={styles.muted}>{name}</span> : null}
    </div>
  );
}

/** Two lines in a cell: the main text and a muted one under it. */
export function StackCell({ main, sub }: { main: ReactNode; sub?: ReactNode }) {
  return (
    <div className={styles.stack}>
      <span>{main}</span>
      {sub ? <span className={styles.muted}>{sub}</span> : null}
    </div>
  );
}

export function Nowrap({ children }: { children: ReactNode }) {
  return <span className={styles.nowrap}>{children}</span>;
}

/** The empty state of a share tab, with the way to the device list where sharing starts. */
export function SharesEmpty({ t, kind }: { t: Translate; kind: 'outgoing' | 'incoming' | 'links' }) {
  const navigate = useNavigate();
  return (
    <ListEmpty
      text={t(`share.empty.${kind}`)}
      hint={t(`share.empty.${kind}.hint`)}
      actions={
        kind === 'incoming' ? undefined : (
          <Button type="primary" size="small" onClick={() => void navigate('/device/list')}>
            {t('share.empty.toDevices')}
          </Button>
        )
      }
    />
  );
}
