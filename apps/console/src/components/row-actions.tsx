import { Button, Message, Popconfirm, Space, type ButtonProps } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useLocale } from '../lib/i18n';
import styles from './row-actions.module.css';

/** The operations cell of a list row: its text buttons side by side on one line. */
export function RowActions({ children }: { children?: ReactNode }) {
  return (
    <Space size={0} style={{ whiteSpace: 'nowrap' }}>
      {children}
    </Space>
  );
}

/**
 * The operations cell most rows have: the row's own actions (`children`, e.g. Send, Details), then Edit, then
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
  return (
    <RowActions>
      {children}
      {edit !== undefined &&
        (typeof edit === 'string' ? (
          <LinkAction to={edit}>{t('common.edit')}</LinkAction>
        ) : (
          <ButtonAction onClick={edit}>{t('common.edit')}</ButtonAction>
        ))}
      <ConfirmAction
        title={confirm ?? t('common.deleteConfirm')}
        status="danger"
        onConfirm={onDelete}
        done={deleted}
      >
        {t('common.delete')}
      </ConfirmAction>
    </RowActions>
  );
}

/** A text button of the operations cell that opens a page. */
export function LinkAction({ to, children }: { to: string; children: ReactNode }) {
  const navigate = useNavigate();
  return <ButtonAction onClick={() => void navigate(to)}>{children}</ButtonAction>;
}

/** A text button of the operations cell that does something at once (opens a modal, a drawer). */
export function ButtonAction({
  onClick,
  status,
  children,
}: {
  onClick: () => void;
  status?: ButtonProps['status'];
  children: ReactNode;
}) {
  return (
    <Button type="text" size="small" status={status} onClick={onClick}>
      {children}
    </Button>
  );
}

/**
 * A text button of the operations cell that asks first (`title`, and a `hint` under it), then runs `onConfirm`.
 * With `done` the success is toasted here; a refusal has been shown by the request layer and only closes the
 * confirmation.
 */
export function ConfirmAction({
  title,
  hint,
  status,
  onConfirm,
  done,
  children,
}: {
  title: ReactNode;
  hint?: ReactNode;
  status?: ButtonProps['status'];
  onConfirm: () => Promise<unknown>;
  done?: string;
  children: ReactNode;
}) {
  return (
    <Popconfirm
      title={title}
      content={hint}
      onOk={() =>
        onConfirm().then(
          () => done && Message.success(done),
          () => undefined,
        )
      }
    >
      <Button type="text" size="small" status={status}>
        {children}
      </Button>
    </Popconfirm>
  );
}

/** The link of a list cell (a row's name or key) to its page, styled as an Arco link; `className` adds to it. */
export function RowLink({
  to,
  className,
  title,
  children,
}: {
  to: string;
  className?: string;
  title?: string;
  children: ReactNode;
}) {
  return (
    <Link to={to} className={className ? `${styles.link} ${className}` : styles.link} title={title}>
      {children}
    </Link>
  );
}
