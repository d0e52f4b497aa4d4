/** Cellhub's mark: a cell tower between signal arcs, in the theme's primary colour. */
export function Logo({ size = 33, title = 'Cellhub' }: { size?: number; title?: string }) {
  return (
    <svg width={size} height={size} viewBox="0 0 48 48" role="img" aria-label={title} fill="none">
      <rect x="2" y="2" width="44" height="44" rx="12" fill="rgb(var(--primary-6))" />
      <path
        d="M14.5 15.5a13 13 0 0 0 0 17M33.5 15.5a13 13 0 0 1 0 17M19 20a6.5 6.5 0 0 0 0 8M29 20a6.5 6.5 0 0 1 0 8"
        stroke="#fff"
        strokeWidth="2.6"
        strokeLinecap="round"
      />
      <circle cx="24" cy="24" r="2.8" fill="#fff" />
      <path d="M24 27v10M20.5 37h7" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" />
    </svg>
  );
}
