import { Empty, Link, Space, Spin } from '@arco-design/web-react';
import { IconLocation } from '@arco-design/web-react/icon';
import type { MapTileConfig } from '@cellhub/contract/map-tiles';
import { lazy, Suspense } from 'react';
import { useLocale } from '../../../../lib/i18n';
import locale from '../../locale/detail-index';
import mapLocale from '../../locale/map-index';
import styles from './detail.module.css';
import mapStyles from './location-map.module.css';
import { useMapTiles } from './map-tiles';

const LeafletMapView = lazy(() => import('./leaflet-map'));

const centred = { display: 'flex', alignItems: 'center', justifyContent: 'center' } as const;

/**
 * A map with the device's marker when it has reported coordinates, an empty state otherwise. The tiles come from
 * the source an admin chose (System settings > Map); with none (offline) or when the source cannot be read, the
 * frame shows the coordinates and links to map sites instead of a grey box.
 */
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
  const tiles = useMapTiles();
  if (lat === null || lng === null || (lat === 0 && lng === 0))
    return (
      <div className={styles.mapFrame} style={centred}>
        <Empty description={t('deviceDetail.location.none')} />
      </div>
    );
  const spinner = (
    <div className={styles.mapFrame} style={centred}>
      <Spin />
    </div>
  );
  if (tiles.isPending) return spinner;
  const config: MapTileConfig | undefined = tiles.data;
  if (!config || config.layers.length === 0) return <OfflineMap lat={lat} lng={lng} />;
  return (
    <div>
      <Suspense fallback={spinner}>
        <LeafletMapView lat={lat} lng={lng} title={title} tiles={config} />
      </Suspense>
      <div className={styles.url} style={{ marginTop: 8 }}>
        {t('deviceDetail.location.coords', { lat: lat.toFixed(6), lng: lng.toFixed(6) })}
      </div>
    </div>
  );
}

/** No tiles: the position in words and links that open it on a map site (each converts WGS-84 itself). */
function OfflineMap({ lat, lng }: { lat: number; lng: number }) {
  const t = useLocale(locale);
  const tm = useLocale(mapLocale);
  const la = lat.toFixed(6);
  const ln = lng.toFixed(6);
  return (
    <div className={`${styles.mapFrame} ${mapStyles.offline}`} data-testid="device-map-offline">
      <IconLocation className={mapStyles.offlineIcon} />
      <div>{tm('deviceMap.offline')}</div>
      <div className={mapStyles.coords}>{t('deviceDetail.location.coords', { lat: la, lng: ln })}</div>
      <Space size={12} wrap>
        <span>{tm('deviceMap.open')}</span>
        <Link
          href={`https://www.openstreetmap.org/?mlat=${la}&mlon=${ln}#map=16/${la}/${ln}`}
          target="_blank"
          rel="noopener noreferrer"
        >
          {tm('deviceMap.osm')}
        </Link>
        <Link
          href={`https://uri.amap.com/marker?position=${ln},${la}&coordinate=wgs84`}
          target="_blank"
          rel="noopener noreferrer"
        >
          {tm('deviceMap.amap')}
        </Link>
      </Space>
    </div>
  );
}
