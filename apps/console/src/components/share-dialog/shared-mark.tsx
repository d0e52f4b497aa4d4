/**
 * The right of a share as a tag, and the mark of a shared device on the device pages ("shared · view", the owner).
 * Light on purpose: the device list and detail load it with their first paint, so it holds no form or picker.
 */
import { Space, Tag, Tooltip } from '@arco-design/web-react';
import type { DeviceShareMark, ShareRight } from '@cellhub/contract/shares';
import { formatTime } from '../../lib/format-time';
import { useLocale } from '../../lib/i18n';
import locale from './locale';

const RIGHT_COLOR: Record<ShareRight, string> = { view: 'arcoblue', control: 'orangered' };

export function ShareRightTag({ right }: { right: ShareRight }) {
  const t = useLocale(locale);
  return (
    <Tag size="small" color={RIGHT_COLOR[right]} data-testid={`share-right-${right}`}>
      {t(`shareDialog.right.${right}`)}
    </Tag>
  );
}

export function SharedMark({
  share,
  showOwner = true,
}: {
  share: DeviceShareMark | undefined;
  showOwner?: boolean;
}) {
  const t = useLocale(locale);
  if (!share) return null;
  const right = t(`shareDialog.right.${share.right}`);
  const tip = [
    t('shareDialog.mark.owner', { owner: share.owner }),
    share.expires_at ? t('shareDialog.mark.expires', { time: formatTime(share.expires_at) }) : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <Space size={6} style={{ whiteSpace: 'nowrap' }} data-testid="shared-mark">
      <Tooltip content={tip}>
        <Tag size="small" color={RIGHT_COLOR[share.right]}>
          {t('shareDialog.mark', { right })}
        </Tag>
      </Tooltip>
      {showOwner ? (
        <span style={{ color: 'var(--color-text-3)' }}>
          {t('shareDialog.mark.owner', { owner: share.owner })}
        </span>
      ) : null}
    </Space>
  );
}
