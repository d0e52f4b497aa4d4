import {
  APPLICATION_PLATFORMS,
  type ApplicationItem,
  type ApplicationPlatform,
} from '@cellhub/contract/applications';
import { Button, Message, Space, Tag, Tooltip, type TableColumnProps } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import {
  ButtonAction,
  ConfirmAction,
  LinkAction,
  RowActions,
  RowLink,
} from '../../../components/row-actions';
import { formatSize } from '../../../lib/format-size';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useRole } from '../../../lib/user';
import {
  type ApplicationListParams,
  downloadVersion,
  useApplicationList,
  useDeleteApplication,
} from '../api';
import { AppIcon, PlatformTag } from '../components/app-icon';
import styles from '../components/applications.module.css';
import locale from '../locale';

interface Filters {
  keyword?: string;
  platform?: ApplicationPlatform;
}

export default function ApplicationListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const isAdmin = useRole() === 'admin';
  const { form, params, setParams, search } = useKeywordList<ApplicationListParams, Filters>();
  const query = useApplicationList(params);
  const remove = useDeleteApplication();

  const columns: TableColumnProps<ApplicationItem>[] = [
    {
      title: <span className={styles.nowrap}>{t('application.col.name')}</span>,
      dataIndex: 'name',
      render: (v: string, row) => (
        <div className={styles.appCell}>
          <AppIcon icon={row.icon} name={v} platform={row.platform} />
          <div className={styles.appText}>
            <RowLink className={styles.appName} title={v} to={`/application/version/${row.id}`}>
              {v}
            </RowLink>
            {row.description && (
              <div className={styles.desc} title={row.description}>
                {row.description}
              </div>
            )}
          </div>
        </div>
      ),
    },
    {
      title: <span className={styles.nowrap}>{t('application.col.platform')}</span>,
      dataIndex: 'platform',
      render: (v: ApplicationPlatform) => <PlatformTag platform={v} t={t} />,
    },
    {
      title: <span className={styles.nowrap}>{t('application.col.latest')}</span>,
      dataIndex: 'latest',
      render: (_: unknown, row) =>
        row.latest ? (
          <Space direction="vertical" size={2}>
            <Space size={4} className={styles.nowrap}>
              <Tag color="arcoblue" size="small" className={styles.mono}>
                {row.latest.version}
              </Tag>
              {row.latest.force_update && (
                <Tag color="red" size="small">
                  {t('application.version.force')}
                </Tag>
              )}
            </Space>
            <span className={`${styles.muted} ${styles.nowrap}`}>
              {formatSize(row.latest.size)} · {t('application.versionCount', { count: row.version_count })}
            </span>
          </Space>
        ) : (
          <span className={styles.muted}>{t('application.none')}</span>
        ),
    },
    {
      title: <span className={styles.nowrap}>{t('application.col.updated')}</span>,
      dataIndex: 'updatedat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: <span className={styles.nowrap}>{t('application.col.operations')}</span>,
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <RowActions>
          {row.latest ? (
            <Tooltip content={row.latest.filename}>
              <span>
                <ButtonAction
                  onClick={() =>
                    void downloadVersion(row.latest!).catch((e: unknown) =>
                      Message.error((e as Error).message),
                    )
                  }
                >
                  {t('application.downloadLatest')}
                </ButtonAction>
              </span>
            </Tooltip>
          ) : null}
          {/* Admins reach the versions by the name too; their row keeps room for edit and delete. */}
          {!isAdmin && (
            <LinkAction to={`/application/version/${row.id}`}>{t('application.versions')}</LinkAction>
          )}
          {isAdmin && (
            <>
              <LinkAction to={`/application/version/${row.id}?edit=1`}>{t('application.edit')}</LinkAction>
              <ConfirmAction
                title={
                  row.version_count > 0
                    ? t('application.delete.withVersions', { count: row.version_count })
                    : t('application.delete.confirm')
                }
                status="danger"
                done={t('application.delete.done')}
                onConfirm={() => remove.mutateAsync(row.id)}
              >
                {t('application.delete')}
              </ConfirmAction>
            </>
          )}
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<ApplicationItem, ApplicationListParams>
      title={t('application.list.title')}
      help={t('application.list.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('application.keyword')}
            placeholder={t('application.keyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('application.platform')}
            field="platform"
            placeholder={t('application.platform.all')}
            options={APPLICATION_PLATFORMS.map((p) => ({ value: p, label: t(`application.platform.${p}`) }))}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={isAdmin ? { label: t('application.create'), to: '/application/create' } : undefined}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('application.total', { total })}
      tableProps={{ scroll: { x: 'max-content' } }}
      empty={
        isAdmin ? (
          <ListEmpty
            text={t('application.empty')}
            hint={t('application.empty.hint')}
            actions={
              <Button type="primary" size="small" onClick={() => void navigate('/application/create')}>
                {t('application.create')}
              </Button>
            }
          />
        ) : (
          <ListEmpty text={t('application.empty')} hint={t('application.empty.user')} />
        )
      }
    />
  );
}
