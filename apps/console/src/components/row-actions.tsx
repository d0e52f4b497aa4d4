import { Button, Message, Popconfirm, Space } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../lib/i18n';

/**
 * The operations cell of a list row: the row's own actions (`children`, e.g. Send, Details), then Edit, then
 * Delete after a confirmation. Edit opens `edit` when it is a path, or calls it.
 *
 * `onDelete` runs once confirmed; with `deleted` the success is toasted here, otherwise the caller says what
 * happened. A refusal has already been shown by the request layer, so it only closes the confirmation.
 */
export function EditDeleteActions({
  edit,
  onDelete,
  confirm,
  deleted,
  children,
}: {
  edit?: string | (() => void);
  onDelete: () => Promise<unknown>;
  confirm?: ReactNode;
  deleted?: string;
  children?: ReactNode;
}) {
  const t = useLocale();
  const navigate = useNavigate();
  return (
    <Space size={0} style={{ whiteSpace: 'nowrap' }}>
      {children}
      {edit !== undefined && (
        <Button
          type="text"
          size="small"
          onClick={() => (typeof edit === 'string' ? void navigate(edit) : edit())}
        >
          {t('common.edit')}
        </Button>
      )}
      <Popconfirm
        title={confirm ?? t('common.deleteConfirm')}
        onOk={() =>
          onDelete().then(
            () => deleted && Message.success(deleted),
            () => undefined,
          )
        }
      >
        <Button type="text" size="small" status="danger">
          {t('common.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}

/** A text button of the operations cell that opens a page. */
export function LinkAction({ to, children }: { to: string; children: ReactNode }) {
  const navigate = useNavigate();
  return (
    <Button type="text" size="small" onClick={() => void navigate(to)}>
      {children}
    </Button>
  );
}
