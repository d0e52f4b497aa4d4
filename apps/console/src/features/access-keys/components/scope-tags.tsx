import type { AccessScope } from '@cellhub/contract/access';
import { Space, Tag } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

const COLORS: Record<AccessScope, string> = {
  'devices:read': 'arcoblue',
  'devices:control': 'orangered',
  'devices:write': 'purple',
  ota: 'cyan',
  sim: 'green',
  alerts: 'gold',
};

/** A key's scopes as coloured tags, one colour per scope so a list reads at a glance. */
export function ScopeTags({ scopes }: { scopes: readonly AccessScope[] }) {
  const t = useLocale(locale);
  return (
    <Space size={4} wrap>
      {scopes.map((s) => (
        <Tag key={s} size="small" color={COLORS[s]}>
          {t(`accessKey.scope.${s}`)}
        </Tag>
      ))}
    </Space>
  );
}

/** Verified or not, as a tag. */
export function VerifiedTag({ verified }: { verified: boolean }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={verified ? 'green' : 'orange'} data-testid="access-key-verified">
      {t(verified ? 'accessKey.verified' : 'accessKey.unverified')}
    </Tag>
  );
}

/** Whether an expiry time has passed. */
export const isExpired = (expiresAt: string | null, now = Date.now()): boolean =>
  expiresAt !== null && new Date(expiresAt).getTime() <= now;
