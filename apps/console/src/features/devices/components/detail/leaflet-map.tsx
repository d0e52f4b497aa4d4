/**
 * The Leaflet map. Only this module imports Leaflet (and its stylesheet), so the library downloads with the first
 * device that has coordinates. The marker is drawn with CSS, not an image: it shows even when tiles cannot load,
 * and the frame keeps its size and controls. Tiles come from the chosen source (System settings > Map); dark mode
 * darkens them with a CSS filter (location-map.module.css). The attribution is plain text, without Leaflet's flag.
 */
import 'leaflet/dist/leaflet.css';
import type { MapTileConfig } from '@cellhub/contract/map-tiles';
import { divIcon, map as createMap, marker, tileLayer, type Map as LeafletMap, type Marker } from 'leaflet';
import { useEffect, useRef } from 'react';
import styles from './detail.module.css';
import mapStyles from './location-map.module.css';
import { plainText, wgs84ToGcj02 } from './map-tiles';

export interface LeafletMapProps {
  lat: number;
  lng: number;
  title: string;
  tiles: MapTileConfig;
}

export default function LeafletMapView({ lat, lng, title, tiles }: LeafletMapProps) {
  const el = useRef<HTMLDivElement>(null);
  const mapRef = useRef<LeafletMap | null>(null);
  const markerRef = useRef<Marker | null>(null);
  // AMap draws in GCJ-02; devices report WGS-84.
  const at = (la: number, ln: number): [number, number] => (tiles.gcj02 ? wgs84ToGcj02(la, ln) : [la, ln]);

  useEffect(() => {
    if (!el.current) return;
    const m = createMap(el.current, { zoomControl: true, attributionControl: true }).setView(
      at(lat, lng),
      14,
    );
    m.attributionControl.setPrefix('Leaflet');
    tiles.layers.forEach((layer, i) => {
      tileLayer(layer.url, {
        maxZoom: tiles.max_zoom,
        subdomains: layer.subdomains || 'abc',
        attribution: i === 0 ? plainText(tiles.attribution) : undefined,
      }).addTo(m);
    });
    markerRef.current = marker(at(lat, lng), {
      title,
      icon: divIcon({ className: styles.marker, iconSize: [18, 18], iconAnchor: [9, 9] }),
    }).addTo(m);
    mapRef.current = m;
    const resize = new ResizeObserver(() => m.invalidateSize());
    resize.observe(el.current);
    return () => {
      resize.disconnect();
      m.remove();
      mapRef.current = null;
      markerRef.current = null;
    };
    // The map is built once per tile source; position changes move it below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tiles]);

  useEffect(() => {
    markerRef.current?.setLatLng(at(lat, lng));
    mapRef.current?.panTo(at(lat, lng));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [lat, lng]);

  return <div ref={el} className={`${styles.mapFrame} ${mapStyles.map}`} data-testid="device-map" />;
}
