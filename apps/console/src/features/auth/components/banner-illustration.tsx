/**
 * Three flat illustrations for the sign-in carousel: a fleet reporting to the cloud, a firmware rollout and a
 * SIM card with its data plan. Drawn here so the page needs no image downloads.
 */
const DEVICE = (x: number, y: number, on: boolean) => (
  <g transform={`translate(${x} ${y})`}>
    <rect width="52" height="34" rx="5" fill="#4080FF" />
    <rect x="6" y="7" width="24" height="4" rx="2" fill="#BEDAFF" />
    <rect x="6" y="15" width="16" height="4" rx="2" fill="#94BFFF" />
    <circle cx="42" cy="10" r="3.5" fill={on ? '#23C343' : '#F7BA1E'} />
    <path d="M44 0V-12" stroke="#94BFFF" strokeWidth="2" strokeLinecap="round" />
  </g>
);

function Fleet() {
  return (
    <>
      <path
        d="M200 92 92 178M200 92l108 86M200 92 138 232M200 92l62 140"
        stroke="#6AA1FF"
        strokeWidth="2"
        strokeDasharray="5 6"
        fill="none"
      />
      <path
        d="M160 96a24 24 0 0 1 4-47 34 34 0 0 1 64-6 26 26 0 0 1 10 53Z"
        fill="#E8F3FF"
        stroke="#BEDAFF"
        strokeWidth="2"
      />
      <path d="M182 66h36M182 78h24" stroke="#4080FF" strokeWidth="5" strokeLinecap="round" />
      {DEVICE(66, 178, true)}
      {DEVICE(282, 178, true)}
      {DEVICE(112, 232, false)}
      {DEVICE(236, 232, true)}
    </>
  );
}

function Rollout() {
  return (
    <>
      <rect x="110" y="40" width="180" height="200" rx="14" fill="#E8F3FF" stroke="#BEDAFF" strokeWidth="2" />
      <rect x="150" y="70" width="100" height="70" rx="8" fill="#165DFF" />
      <path
        d="M200 84v36m-14-14 14 14 14-14"
        stroke="#fff"
        strokeWidth="6"
        strokeLinecap="round"
        fill="none"
      />
      {[0, 1, 2].map((i) => (
        <g key={i} transform={`translate(134 ${162 + i * 24})`}>
          <rect width="132" height="10" rx="5" fill="#BEDAFF" />
          <rect width={[132, 92, 40][i]} height="10" rx="5" fill={['#23C343', '#4080FF', '#4080FF'][i]} />
        </g>
      ))}
      <circle cx="300" cy="62" r="22" fill="#23C343" />
      <path d="m290 62 7 7 13-14" stroke="#fff" strokeWidth="5" strokeLinecap="round" fill="none" />
    </>
  );
}

function Sim() {
  return (
    <>
      <path d="M130 40h104l36 36v164H130Z" fill="#E8F3FF" stroke="#BEDAFF" strokeWidth="2" />
      <rect x="156" y="116" width="88" height="76" rx="10" fill="#F7BA1E" />
      <path d="M156 141h88M156 167h88M186 116v76M214 116v76" stroke="#FFE4BA" strokeWidth="3" />
      {[0, 1, 2, 3].map((i) => (
        <rect key={i} x={292 + i * 14} y={96 - i * 14} width="9" height={24 + i * 14} rx="3" fill="#4080FF" />
      ))}
      <circle cx="92" cy="92" r="26" fill="#4080FF" />
      <path
        d="M82 100h20m-17-4v-9a7 7 0 0 1 14 0v9m-10 8a3 3 0 0 0 6 0"
        stroke="#fff"
        strokeWidth="3.5"
        strokeLinecap="round"
        fill="none"
      />
    </>
  );
}

const KINDS = { fleet: Fleet, rollout: Rollout, sim: Sim };

export default function BannerIllustration({ kind }: { kind: keyof typeof KINDS }) {
  const Art = KINDS[kind];
  return (
    <svg viewBox="0 0 400 280" width="320" height="224" aria-hidden="true">
      <ellipse cx="200" cy="262" rx="170" ry="14" fill="#0E42D2" opacity=".45" />
      <Art />
    </svg>
  );
}
