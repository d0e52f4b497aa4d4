import type { AccessKeyItem } from '@cellhub/contract/access-keys';
import { Button, Space, Tag, Typography, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ConfirmAction, LinkAction, RowActions, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useUserInfo } from '../../../lib/user';
import { useAccessKeyList, useDeleteAccessKey, type AccessKeyListParams } from '../api';
import { EnabledSwitch } from '../components/enabled-switch';
import { useRotateSecret } from '../components/rotate-secret';
import { isExpired, ScopeTags, VerifiedTag } from '../components/scope-tags';
import { VerifyModal } from '../components/verify-modal';
import locale from '../locale';
import styles from '../components/access-keys.module.css';

const detailPath = (ak: string) => `/accesskey/detail/${ak}`;

export default function AccessKeyListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<AccessKeyListParams>();
  const query = useAccessKeyList(params);
  const remove = useDeleteAccessKey();
  const { rotate, modal } = useRotateSecret();
  const [verifying, setVerifying] = useState<string | null>(null);
  const { data: me } = useUserInfo();
  // An admin sees (and may change, disable, delete) everyone's keys; only the owner rotates or verifies one
  // (docs/open-api.md): the new secret is the owner's, and the code goes to the owner's phone or email.
  const mine = (row: AccessKeyItem) => row.owner === null || row.owner.uid === me?.uid;

  // Nine facts and three actions fit a 1280 px window: name over key (and owner), switch over verification, expiry over
  // creation, time over address.
  const columns: TableColumnProps<AccessKeyItem>[] = [
    {
      title: t('accessKey.col.nameKey'),
      dataIndex: 'access_key',
      render: (v: string, row) => (
        <div className={styles.stack}>
          <RowLink to={detailPath(v)}>{row.name}</RowLink>
          <Typography.Text
            className={`${styles.mono} ${styles.muted} ${styles.keyText}`}
            copyable={{ text: v }}
            style={{ margin: 0 }}
          >
            {v}
          </Typography.Text>
          {row.owner && (
            <span className={`${styles.muted} ${styles.keyText}`}>
              {t('accessKey.ownedBy', { name: row.owner.username })}
            </span>
          )}
        </div>
      ),
    },
    {
      title: t('accessKey.col.scopes'),
      dataIndex: 'scopes',
      width: 150,
      render: (v: AccessKeyItem['scopes']) => <ScopeTags scopes={v} />,
    },
    {
      title: t('accessKey.col.status'),
      dataIndex: 'enabled',
      render: (_: boolean, row) => (
        <div className={styles.stack} style={{ gap: 6 }}>
          <Space size={8}>
            <EnabledSwitch item={row} />
            {!row.verified && mine(row) && (
              <Button
                type="text"
                size="mini"
                style={{ padding: '0 4px' }}
                onClick={() => setVerifying(row.access_key)}
              >
                {t('accessKey.verify')}
              </Button>
            )}
          </Space>
          <VerifiedTag verified={row.verified} />
        </div>
      ),
    },
    {
      // The key's life: until when (first), since when (under it).
      title: t('accessKey.col.expires'),
      dataIndex: 'expires_at',
      render: (v: string | null, row) => (
        <div className={styles.stack}>
          {v === null ? (
            <span className={styles.nowrap}>{t('accessKey.never')}</span>
          ) : (
            <Space size={4} className={styles.nowrap}>
              <span title={formatTime(v)}>{formatTime(v).slice(0, 10)}</span>
              {isExpired(v) && (
                <Tag size="small" color="red">
                  {t('accessKey.expired')}
                </Tag>
              )}
            </Space>
          )}
          <span
            className={`${styles.muted} ${styles.nowrap} ${styles.keyText}`}
            title={formatTime(row.created_at)}
          >
            {t('accessKey.createdOn', { date: formatTime(row.created_at).slice(0, 10) })}
          </span>
        </div>
      ),
    },
    {
      title: t('accessKey.col.lastUsed'),
      dataIndex: 'last_used_at',
      render: (v: string | null, row) =>
        v === null ? (
          <span className={`${styles.muted} ${styles.nowrap}`}>{t('accessKey.neverUsed')}</span>
        ) : (
          <div className={styles.stack}>
            <span className={styles.nowrap}>{formatTime(v).slice(0, 16)}</span>
            <span className={`${styles.mono} ${styles.muted} ${styles.keyText}`}>{row.last_used_ip}</span>
          </div>
        ),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, row) => (
        <RowActions>
          <LinkAction to={detailPath(row.access_key)}>{t('accessKey.detail')}</LinkAction>
          {mine(row) && (
            <ConfirmAction title={t('accessKey.rotate.confirm')} onConfirm={() => rotate(row.access_key)}>
              {t('accessKey.rotate.short')}
            </ConfirmAction>
          )}
          <ConfirmAction
            title={t('accessKey.delete.confirm')}
            status="danger"
            done={t('accessKey.delete.done')}
            onConfirm={() => remove.mutateAsync(row.access_key)}
          >
            {t('common.delete')}
          </ConfirmAction>
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<AccessKeyItem, AccessKeyListParams>
      title={t('accessKey.list.title')}
      help={t('accessKey.list.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('accessKey.keyword')}
            placeholder={t('accessKey.keyword.placeholder')}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('accessKey.create'), to: '/accesskey/create' }}
      toolbarEnd={
        <Button type="text" href="/api/docs" target="_blank">
          {t('accessKey.docs')}
        </Button>
      }
      rowKey="access_key"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('accessKey.total', { total })}
      tableProps={{ scroll: { x: 'max-content' } }}
      empty={
        <ListEmpty
          text={t('accessKey.empty')}
          hint={t('accessKey.empty.hint')}
          actions={
            <>
              <Button type="primary" size="small" onClick={() => void navigate('/accesskey/create')}>
                {t('accessKey.create')}
              </Button>
              <Button size="small" href="/api/docs" target="_blank">
                {t('accessKey.docs')}
              </Button>
            </>
          }
        />
      }
    >
      {modal}
      <VerifyModal accessKey={verifying} onClose={() => setVerifying(null)} />
    </ListPage>
  );
}
