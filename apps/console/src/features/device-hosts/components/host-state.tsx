import type { DeviceHostState } from '@cellhub/contract/device-hosts';
import { Badge, Tooltip } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

const STATUS = { listening: 'success', stopped: 'default', failed: 'error' } as const;

/** A host's listener state as a badge; a failure shows the system's reason on hover. */
export function HostState({ state, error }: { state: DeviceHostState; error: string | null }) {
  const t = useLocale(locale);
  const badge = <Badge status={STATUS[state]} text={t(`dh.state.${state}`)} />;
  return state === 'failed' && error ? <Tooltip content={error}>{badge}</Tooltip> : badge;
}
