import { Empty, Spin } from '@arco-design/web-react';
import { lazy, Suspense } from 'react';
import { useLocale } from '../../../../lib/i18n';
import locale from '../../locale/detail-index';
import styles from './detail.module.css';

const LeafletMapView = lazy(() => import('./leaflet-map'));

/** A map with the device's marker when it has reported coordinates, an empty state otherwise. */
export default function LocationMap({
  lat,
  lng,
  title,
}: {
  lat: number | null;
  lng: number | null;
  title: string;
}) {
  const t = useLocale(locale);
  if (lat === null || lng === null || (lat === 0 && lng === 0))
    return (
      <div
        className={styles.mapFrame}
        style={{ display: 'flex', alignItems: 'center', justifyContent: 'center' }}
      >
        <Empty description={t('deviceDetail.location.none')} />
      </div>
    );
  return (
    <div>
      <Suspense
        fallback={
          <div
            className={styles.mapFrame}
            style={{ display: 'flex', alignItems: 'center', justifyContent: 'center' }}
          >
            <Spin />
          </div>
        }
      >
        <LeafletMapView lat={lat} lng={lng} title={title} />
      </Suspense>
      <div className={styles.url} style={{ marginTop: 8 }}>
        {t('deviceDetail.location.coords', { lat: lat.toFixed(6), lng: lng.toFixed(6) })}
      </div>
    </div>
  );
}
