const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** Bytes as people read them: `65536` → `64 KB`, `1536` → `1.5 KB` (binary units, at most one decimal). */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 || value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
  return `${text} ${UNITS[unit]}`;
}
