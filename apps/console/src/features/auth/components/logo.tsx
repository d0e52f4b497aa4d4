/** The Cellhub mark: a cell tower radiating to a device, drawn inline so the sign-in page loads no images. */
export default function Logo({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
      <defs>
        <linearGradient id="cellhub-logo" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#33D1C9" />
          <stop offset="1" stopColor="#165DFF" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill="url(#cellhub-logo)" />
      <path d="M16 13 11 26h2.4l1-3h3.2l1 3H21Zm-.9 8L16 18l.9 3Z" fill="#fff" />
      <circle cx="16" cy="11" r="2" fill="#fff" />
      <path
        d="M11.5 6.5a6.4 6.4 0 0 0 0 9M20.5 6.5a6.4 6.4 0 0 1 0 9M8.6 4a10 10 0 0 0 0 14M23.4 4a10 10 0 0 1 0 14"
        stroke="#fff"
        strokeWidth="1.6"
        strokeLinecap="round"
        fill="none"
        opacity=".85"
      />
    </svg>
  );
}
