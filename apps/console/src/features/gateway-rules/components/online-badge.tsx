import { Badge } from '@arco-design/web-react';

/** A device's online state as a dot and a word. */
export function OnlineBadge({ online, on, off }: { online: number; on: string; off: string }) {
  return <Badge status={online === 1 ? 'success' : 'default'} text={online === 1 ? on : off} />;
}
