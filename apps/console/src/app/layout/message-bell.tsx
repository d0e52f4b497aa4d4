/**
 * The navbar's bell with the unread badge. The message box it opens (message-box.tsx: tabs, list, empty and error
 * states, the inbox texts) is a chunk of its own, fetched when the pointer reaches the bell or the bell is opened:
 * no signed-in page needs it for its first screen.
 */
import { Badge, Popover, Spin } from '@arco-design/web-react';
import { lazy, Suspense, useState, type ReactElement } from 'react';
import { useUnread } from '../../features/inbox/api';

const loadMessageBox = () => import('./message-box');
const MessageBox = lazy(() => loadMessageBox().then((m) => ({ default: m.MessageBox })));

export function MessageBell({ children }: { children: ReactElement }) {
  const [open, setOpen] = useState(false);
  const { data: unread } = useUnread();
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
        <Badge count={unread?.total ?? 0} maxCount={99} offset={[-4, 4]}>
          {children}
        </Badge>
      </span>
    </Popover>
  );
}
