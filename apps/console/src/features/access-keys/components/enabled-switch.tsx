import type { AccessKeyItem } from '@cellhub/contract/access-keys';
import { Message, Popconfirm, Switch } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import { useUpdateAccessKey } from '../api';
import locale from '../locale';

/**
 * A key's enabled switch. Turning it off asks first (requests signed with it are refused at once); turning it on
 * does not.
 */
export function EnabledSwitch({ item }: { item: AccessKeyItem }) {
  const t = useLocale(locale);
  const update = useUpdateAccessKey();
  const set = (enabled: boolean) =>
    update.mutateAsync({ ak: item.access_key, body: { enabled } }).then(
      () => Message.success(t(enabled ? 'accessKey.enable.done' : 'accessKey.disable.done')),
      () => undefined,
    );
  const label = t(item.enabled ? 'accessKey.enabled' : 'accessKey.disabled');
  if (!item.enabled)
    return (
      <Switch
        size="small"
        checked={false}
        loading={update.isPending}
        aria-label={label}
        onChange={() => void set(true)}
      />
    );
  return (
    <Popconfirm title={t('accessKey.disable.confirm')} onOk={() => set(false)}>
      <Switch size="small" checked loading={update.isPending} aria-label={label} />
    </Popconfirm>
  );
}
