/**
 * The Leaflet map. Only this module imports Leaflet (and its stylesheet), so the library downloads with the first
 * device that has coordinates. The marker is drawn with CSS, not an image: it shows even when tiles cannot load
 * (offline, or a network that blocks the tile server), and the frame keeps its size and controls.
 */
import 'leaflet/dist/leaflet.css';
import { divIcon, map as createMap, marker, tileLayer, type Map as LeafletMap, type Marker } from 'leaflet';
import { useEffect, useRef } from 'react';
import styles from './detail.module.css';

export interface LeafletMapProps {
  lat: number;
  lng: number;
  title: string;
}

export default function LeafletMapView({ lat, lng, title }: LeafletMapProps) {
  const el = useRef<HTMLDivElement>(null);
  const mapRef = useRef<LeafletMap | null>(null);
  const markerRef = useRef<Marker | null>(null);

  useEffect(() => {
    if (!el.current) return;
    const m = createMap(el.current, { zoomControl: true, attributionControl: true }).setView([lat, lng], 14);
    tileLayer('https://tile.openstreetmap.org/{z}/{x}/{y}.png', {
      maxZoom: 19,
      attribution: '&copy; OpenStreetMap contributors',
    }).addTo(m);
    markerRef.current = marker([lat, lng], {
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
    // The map is built once; position changes move it below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    markerRef.current?.setLatLng([lat, lng]);
    mapRef.current?.panTo([lat, lng]);
  }, [lat, lng]);

  return <div ref={el} className={styles.mapFrame} data-testid="device-map" />;
}
