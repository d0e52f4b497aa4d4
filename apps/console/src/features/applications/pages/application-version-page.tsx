import type { ApplicationVersion } from '@cellhub/contract/applications';
import {
  Button,
  Card,
  Descriptions,
  Divider,
  Message,
  Modal,
  Popconfirm,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDelete, IconDownload, IconEdit, IconUpload } from '@arco-design/web-react/icon';
import { useEffect, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { ListEmpty } from '../../../components/list-page';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { ButtonAction, ConfirmAction, RowActions } from '../../../components/row-actions';
import { formatSize } from '../../../lib/format-size';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useRole } from '../../../lib/user';
import {
  downloadVersion,
  useApplication,
  useApplicationVersions,
  useDeleteApplication,
  useDeleteVersion,
  useUpdateVersion,
} from '../api';
import { AppIcon, PlatformTag } from '../components/app-icon';
import { ApplicationForm } from '../components/application-form';
import styles from '../components/applications.module.css';
import { EditVersionModal } from '../components/edit-version-modal';
import { UploadVersionModal } from '../components/upload-version-modal';
import locale from '../locale';

/** `/application/version/:id`: the application, its versions to download, and (admins) publishing them. */
export default function ApplicationVersionPage() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const isAdmin = useRole() === 'admin';
  const [params, setParams] = useState({ current: 1, per_page: 10 });
  const app = useApplication(isRecordId(id) ? id : undefined);
  const a = app.data;
  const versions = useApplicationVersions(id, params, !!a);
  const removeApp = useDeleteApplication();
  const removeVersion = useDeleteVersion();
  const update = useUpdateVersion();
  const [uploading, setUploading] = useState(false);
  const [editing, setEditing] = useState<ApplicationVersion>();
  const [editingApp, setEditingApp] = useState(false);

  // The list's Edit opens this page with ?edit=1.
  useEffect(() => {
    if (search.get('edit') === '1' && isAdmin) {
      setEditingApp(true);
      setSearch({}, { replace: true });
    }
  }, [search, setSearch, isAdmin]);

  const state = recordState(app, {
    badId: !isRecordId(id),
    back: '/application/list',
    notFoundTitle: t('application.notFound'),
  });
  if (state || !a) return state;

  const download = (v: ApplicationVersion) =>
    downloadVersion(v).catch((e: unknown) => Message.error((e as Error).message));

  const notesOf = (v: ApplicationVersion) =>
    (lang === 'en-US' ? v.notes_en || v.notes_zh : v.notes_zh || v.notes_en) || '';

  const columns: TableColumnProps<ApplicationVersion>[] = [
    {
      title: t('application.version.col.version'),
      dataIndex: 'version',
      render: (v: string, row) => (
        <Space size={4} className={styles.nowrap}>
          <span className={styles.mono}>{v}</span>
          {row.latest && (
            <Tag color="green" size="small">
              {t('application.version.latest')}
            </Tag>
          )}
          {row.force_update && (
            <Tag color="red" size="small">
              {t('application.version.force')}
            </Tag>
          )}
        </Space>
      ),
    },
    {
      title: t('application.version.col.file'),
      dataIndex: 'filename',
      render: (v: string, row) => (
        <Space direction="vertical" size={0}>
          <span className={styles.nowrap}>{v}</span>
          <Tooltip content={`${row.size} B`}>
            <span className={`${styles.muted} ${styles.nowrap}`}>{formatSize(row.size)}</span>
          </Tooltip>
        </Space>
      ),
    },
    {
      title: t('application.version.col.sha256'),
      dataIndex: 'sha256',
      render: (v: string) => (
        <Typography.Text
          className={styles.sha}
          copyable={{ text: v, tooltips: [undefined, t('application.version.copied')] }}
        >
          <Tooltip content={v}>
            <span>{`${v.slice(0, 12)}…${v.slice(-6)}`}</span>
          </Tooltip>
        </Typography.Text>
      ),
    },
    {
      title: t('application.version.col.notes'),
      dataIndex: 'notes',
      render: (_: unknown, row) => {
        const notes = notesOf(row);
        return notes ? (
          <span className={styles.notes}>{notes}</span>
        ) : (
          <span className={styles.muted}>—</span>
        );
      },
    },
    {
      title: t('application.version.col.created'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('application.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <RowActions>
          <ButtonAction onClick={() => void download(row)}>{t('application.version.download')}</ButtonAction>
          {isAdmin && (
            <>
              {!row.latest && (
                <ButtonAction
                  onClick={() =>
                    void update
                      .mutateAsync({ id, versionId: row.id, body: { latest: true }, silent: false })
                      .then(
                        () => Message.success(t('application.version.setLatest.done')),
                        () => undefined,
                      )
                  }
                >
                  {t('application.version.setLatest')}
                </ButtonAction>
              )}
              <ButtonAction onClick={() => setEditing(row)}>{t('application.edit')}</ButtonAction>
              <ConfirmAction
                title={t('application.version.delete.confirm')}
                status="danger"
                done={t('application.version.deleted')}
                onConfirm={() => removeVersion.mutateAsync({ id, versionId: row.id })}
              >
                {t('application.delete')}
              </ConfirmAction>
            </>
          )}
        </RowActions>
      ),
    },
  ];

  const onDeleteApp = () =>
    removeApp.mutateAsync(a.id).then(
      () => {
        Message.success(t('application.delete.done'));
        void navigate('/application/list');
      },
      () => undefined,
    );

  return (
    <PageContainer>
      <Card bordered={false}>
        {/* The header is the card's body: a 48 px icon does not fit Arco's fixed-height card title. */}
        <div className={styles.header}>
          <div className={styles.headerTitle}>
            <AppIcon icon={a.icon} name={a.name} platform={a.platform} size={48} />
            <Space direction="vertical" size={2}>
              <Space>
                <span className={styles.headerName}>{a.name}</span>
                <PlatformTag platform={a.platform} t={t} />
              </Space>
              {a.description && <span className={styles.headerDesc}>{a.description}</span>}
            </Space>
          </div>
          <Space>
            {a.latest && (
              <Button type="primary" icon={<IconDownload />} onClick={() => void download(a.latest!)}>
                {t('application.downloadLatest')}
              </Button>
            )}
            {isAdmin && (
              <>
                <Button icon={<IconEdit />} onClick={() => setEditingApp(true)}>
                  {t('application.edit')}
                </Button>
                <Popconfirm
                  title={
                    a.version_count > 0
                      ? t('application.delete.withVersions', { count: a.version_count })
                      : t('application.delete.confirm')
                  }
                  onOk={onDeleteApp}
                >
                  <Button status="danger" icon={<IconDelete />}>
                    {t('application.delete')}
                  </Button>
                </Popconfirm>
              </>
            )}
          </Space>
        </div>
        <Divider style={{ margin: '16px 0' }} />
        <Descriptions
          column={3}
          data={[
            {
              label: t('application.col.latest'),
              value: a.latest ? (
                <Tag color="arcoblue" className={styles.mono}>
                  {a.latest.version}
                </Tag>
              ) : (
                <span className={styles.muted}>{t('application.none')}</span>
              ),
            },
            { label: t('application.detail.createdat'), value: formatTime(a.createdat) },
            { label: t('application.detail.updatedat'), value: formatTime(a.updatedat) },
          ]}
        />
      </Card>
      <Card
        bordered={false}
        title={`${t('application.detail.versions')} (${versions.data?.total ?? a.version_count})`}
        extra={
          isAdmin && (
            <Button type="primary" icon={<IconUpload />} onClick={() => setUploading(true)}>
              {t('application.version.upload')}
            </Button>
          )
        }
      >
        <Table<ApplicationVersion>
          rowKey="id"
          border={{ wrapper: false, headerCell: false, bodyCell: false }}
          scroll={{ x: 'max-content' }}
          loading={versions.isFetching}
          columns={columns}
          data={versions.data?.data ?? []}
          noDataElement={
            <ListEmpty
              text={t('application.version.empty')}
              hint={isAdmin ? t('application.version.empty.hint') : undefined}
              actions={
                isAdmin ? (
                  <Button type="primary" size="small" onClick={() => setUploading(true)}>
                    {t('application.version.upload')}
                  </Button>
                ) : undefined
              }
            />
          }
          pagination={listPagination(params, setParams, versions.data?.total, (total) =>
            t('application.total', { total }),
          )}
        />
      </Card>
      {isAdmin && (
        <>
          <UploadVersionModal applicationId={a.id} visible={uploading} onClose={() => setUploading(false)} />
          <EditVersionModal version={editing} onClose={() => setEditing(undefined)} />
          <Modal
            title={t('application.form.editTitle')}
            visible={editingApp}
            footer={null}
            onCancel={() => setEditingApp(false)}
            style={{ width: 640 }}
            unmountOnExit
          >
            <ApplicationForm
              existing={a}
              onSaved={() => setEditingApp(false)}
              onCancel={() => setEditingApp(false)}
            />
          </Modal>
        </>
      )}
    </PageContainer>
  );
}
