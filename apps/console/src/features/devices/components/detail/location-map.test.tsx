import type { MapTileConfig } from '@cellhub/contract/map-tiles';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../../../lib/request';
import LocationMap from './location-map';
import { plainText, wgs84ToGcj02 } from './map-tiles';

const OFFLINE: MapTileConfig = { provider: 'none', layers: [], attribution: '', max_zoom: 19, gcj02: false };

function renderMap(lat: number | null, lng: number | null) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <LocationMap lat={lat} lng={lng} title="dtu-1" />
    </QueryClientProvider>,
  );
}

describe('device location map', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
  afterEach(() => vi.restoreAllMocks());

  it('offline: shows the coordinates and links to map sites, not a grey box', async () => {
    const get = vi.spyOn(http, 'get').mockResolvedValue(OFFLINE);
    renderMap(31.230416, 121.473701);
    const box = await screen.findByTestId('device-map-offline');
    expect(get).toHaveBeenCalledWith('/api/map/tiles', expect.anything());
    expect(box.textContent).toContain('31.230416');
    expect(box.textContent).toContain('121.473701');
    const links = [...box.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(links).toEqual([
      'https://www.openstreetmap.org/?mlat=31.230416&mlon=121.473701#map=16/31.230416/121.473701',
      'https://uri.amap.com/marker?position=121.473701,31.230416&coordinate=wgs84',
    ]);
    expect(screen.queryByTestId('device-map')).toBeNull();
  });

  it('falls back to the offline view when the tile source cannot be read', async () => {
    vi.spyOn(http, 'get').mockRejectedValue(new Error('network'));
    renderMap(39.9, 116.4);
    expect(await screen.findByTestId('device-map-offline')).toBeTruthy();
  });

  it('says the device has not reported a position, without asking for tiles to draw', () => {
    vi.spyOn(http, 'get').mockResolvedValue(OFFLINE);
    renderMap(null, null);
    expect(screen.queryByTestId('device-map-offline')).toBeNull();
    expect(screen.getByText(/not reported/i)).toBeTruthy();
  });
});

describe('map helpers', () => {
  it('shifts WGS-84 to GCJ-02 inside China only', () => {
    const [lat, lng] = wgs84ToGcj02(39.908722, 116.397499);
    expect(lat - 39.908722).toBeGreaterThan(0.001);
    expect(lat - 39.908722).toBeLessThan(0.002);
    expect(lng - 116.397499).toBeGreaterThan(0.005);
    expect(lng - 116.397499).toBeLessThan(0.007);
    expect(wgs84ToGcj02(51.5, -0.12)).toEqual([51.5, -0.12]);
  });

  it('keeps the attribution plain text', () => {
    expect(plainText('<img src=x onerror=alert(1)> © A&B')).toBe(
      '&lt;img src=x onerror=alert(1)&gt; © A&amp;B',
    );
  });
});
