/**
 * The navbar's bell with the unread badge. The message box it opens (message-box.tsx: tabs, list, empty and error
 * states, the inbox texts) is a chunk of its own, fetched when the pointer reaches the bell or the bell is opened:
 * no signed-in page needs it for its first screen. The unread count is asked for once the page is idle: the
 * badge must not hold back, nor queue before, the page's own requests.
 */
import { Badge, Popover, Spin } from '@arco-design/web-react';
import { lazy, Suspense, useEffect, useState, type ReactElement } from 'react';
import { useUnread } from '../../features/inbox/api';
import { whenIdle } from '../../lib/idle';

const loadMessageBox = () => import('./message-box');
const MessageBox = lazy(() => loadMessageBox().then((m) => ({ default: m.MessageBox })));

/** Reports the unread total; mounted once the page is idle, so the query starts then. */
function UnreadCount({ onCount }: { onCount: (n: number) => void }) {
  const total = useUnread().data?.total ?? 0;
  useEffect(() => onCount(total), [total, onCount]);
  return null;
}

export function MessageBell({ children }: { children: ReactElement }) {
  const [open, setOpen] = useState(false);
  const [idle, setIdle] = useState(false);
  const [unread, setUnread] = useState(0);
  useEffect(() => whenIdle(() => setIdle(true)), []);
  const warm = () => void loadMessageBox().catch(() => undefined);
  return (
    <Popover
      trigger="click"
      position="br"
      popupVisible={open}
      onVisibleChange={setOpen}
      content={
        <Suspense fallback={<Spin className="message-box-state" />}>
          <MessageBox onOpen={() => setOpen(false)} />
        </Suspense>
      }
      className="message-box-popover"
    >
      <span data-testid="inbox-bell" onPointerEnter={warm} onFocus={warm}>
        {(idle || open) && <UnreadCount onCount={setUnread} />}
        <Badge count={unread} maxCount={99} offset={[-4, 4]}>
          {children}
        </Badge>
      </span>
    </Popover>
  );
}
