import { create } from 'qrcode';
import { useMemo } from 'react';

/**
 * Draws a QR code as SVG elements (no innerHTML, no data: URL, so the CSP stays strict). Dark modules use the
 * text colour on a white quiet zone: phones read dark-on-light codes best, in the dark theme too.
 */
export default function QrCodeSvg({ value, size = 168 }: { value: string; size?: number }) {
  const { path, count } = useMemo(() => {
    const { modules } = create(value, { errorCorrectionLevel: 'M' });
    const n = modules.size;
    let d = '';
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++) if (modules.get(r, c)) d += `M${c + 2} ${r + 2}h1v1h-1z`;
    return { path: d, count: n + 4 };
  }, [value]);

  return (
    <svg
      width={size}
      height={size}
      viewBox={`0 0 ${count} ${count}`}
      shapeRendering="crispEdges"
      role="img"
      aria-label="QR code"
    >
      <rect width={count} height={count} fill="#fff" />
      <path d={path} fill="#1d2129" />
    </svg>
  );
}
