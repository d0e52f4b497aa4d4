import type { FirmwareVersion } from '@cellhub/contract/firmware';
import {
  Button,
  Card,
  Descriptions,
  Empty,
  Message,
  Popconfirm,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
  Link,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDelete, IconDownload, IconEdit, IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import {
  useDeleteFirmware,
  useDeleteVersion,
  useFirmware,
  useFirmwareVersions,
  useUpdateVersion,
} from '../api';
import { downloadFile } from '../../../lib/download-file';
import { formatSize } from '../../../lib/format-size';
import locale from '../locale';
import styles from './firmware.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

export default function FirmwareDetailPage() {
  const t = useLocale(locale);
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const [params, setParams] = useState({ current: 1, per_page: 10 });
  const firmware = useFirmware(id);
  const f = firmware.data;
  const versions = useFirmwareVersions(id, params, !!f);
  const removeFirmware = useDeleteFirmware();
  const removeVersion = useDeleteVersion();
  const update = useUpdateVersion();

  const state = recordState(firmware, { badId: !isRecordId(id), back: '/firmware/list' });
  if (state || !f) return state;

  const onDelete = () =>
    removeFirmware.mutateAsync(f.id).then(
      () => {
        Message.success(t('firmware.delete.done'));
        void navigate('/firmware/list');
      },
      () => undefined,
    );

  const setLatest = (v: FirmwareVersion) =>
    update.mutateAsync({ id, versionId: v.id, body: { latest: true }, silent: false }).then(
      () => Message.success(t('firmware.version.setLatest.done')),
      () => undefined,
    );

  const onDeleteVersion = (v: FirmwareVersion) =>
    removeVersion.mutateAsync({ id, versionId: v.id }).then(
      () => Message.success(t('firmware.version.deleted')),
      () => undefined,
    );

  const download = (v: FirmwareVersion) =>
    downloadFile(`/api/firmware/${id}/versions/${v.id}/file`, v.filename).catch((e: unknown) =>
      Message.error((e as Error).message),
    );

  const columns: TableColumnProps<FirmwareVersion>[] = [
    {
      title: t('firmware.version.col.version'),
      dataIndex: 'version',
      render: (v: string, row) => (
        <Space size={6} className={styles.nowrap}>
          <span className={styles.mono}>{v}</span>
          {row.latest && (
            <Tag color="green" size="small">
              {t('firmware.version.latest')}
            </Tag>
          )}
        </Space>
      ),
    },
    {
      title: t('firmware.version.col.file'),
      dataIndex: 'filename',
      render: (v: string, row) => (
        <Space direction="vertical" size={0}>
          <Tooltip content={t('firmware.version.download')}>
            <Link className={`${styles.link} ${styles.nowrap}`} onClick={() => void download(row)}>
              <IconDownload /> {v}
            </Link>
          </Tooltip>
          <span className={`${styles.muted} ${styles.nowrap}`}>
            <Tooltip content={`${row.size} B`}>
              <span>{formatSize(row.size)}</span>
            </Tooltip>
            {' · '}
            {row.url ? (
              <Tooltip content={row.url}>{t('firmware.version.source.url')}</Tooltip>
            ) : (
              t('firmware.version.source.upload')
            )}
          </span>
        </Space>
      ),
    },
    {
      title: t('firmware.version.col.checksum'),
      dataIndex: 'checksum',
      render: (v: string, row) => (
        <Space direction="vertical" size={0}>
          <Tag size="small">{row.algorithm === 'md5' ? 'MD5' : 'SHA-256'}</Tag>
          <Typography.Text
            className={`${styles.checksum} ${styles.checksumCell}`}
            copyable={{ text: v, tooltips: [undefined, t('firmware.version.copied')] }}
          >
            {v}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('firmware.version.col.description'),
      dataIndex: 'description',
      render: (v: string) => (
        <span className={styles.desc}>{v || <span className={styles.muted}>—</span>}</span>
      ),
    },
    {
      title: t('firmware.version.col.created'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('firmware.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <Space size={0} className={styles.nowrap}>
          {!row.latest && (
            <Button type="text" size="small" onClick={() => void setLatest(row)}>
              {t('firmware.version.setLatest')}
            </Button>
          )}
          <Button
            type="text"
            size="small"
            onClick={() => void navigate(`/firmware/detail/${id}/version/edit/${row.id}`)}
          >
            {t('firmware.edit')}
          </Button>
          <Popconfirm key="delete" title={t('firmware.delete.confirm')} onOk={() => onDeleteVersion(row)}>
            <Button type="text" size="small" status="danger">
              {t('firmware.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  const addVersion = () => void navigate(`/firmware/detail/${id}/version/create`);

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={
          <Space>
            {f.name}
            <Tag color={f.type === 1 ? 'green' : 'orange'}>{t(`firmware.type.${f.type}`)}</Tag>
          </Space>
        }
        extra={
          <Space>
            <Button icon={<IconEdit />} onClick={() => void navigate(`/firmware/edit/${f.id}`)}>
              {t('firmware.edit')}
            </Button>
            <Popconfirm
              title={
                f.version_count > 0
                  ? t('firmware.delete.withVersions', { count: f.version_count })
                  : t('firmware.delete.confirm')
              }
              onOk={onDelete}
            >
              <Button status="danger" icon={<IconDelete />}>
                {t('firmware.delete')}
              </Button>
            </Popconfirm>
          </Space>
        }
      >
        <Descriptions
          column={2}
          labelStyle={{ width: 140 }}
          data={[
            { label: t('firmware.field.name'), value: f.name },
            {
              label: t('firmware.field.product'),
              value: (
                <Space>
                  {f.product_name || <span className={styles.muted}>{t('firmware.productMissing')}</span>}
                  <span className={`${styles.mono} ${styles.muted}`}>{f.product_key}</span>
                </Space>
              ),
            },
            { label: t('firmware.field.type'), value: t(`firmware.type.${f.type}`) },
            { label: t('firmware.field.objname'), value: f.objname || '—' },
            {
              label: t('firmware.col.public'),
              value: f.public ? t('firmware.public.yes') : t('firmware.public.no'),
            },
            {
              label: t('firmware.field.latest'),
              value: f.latest_version ? (
                <Tag color="arcoblue" className={styles.mono}>
                  {f.latest_version}
                </Tag>
              ) : (
                <span className={styles.muted}>{t('firmware.none')}</span>
              ),
            },
            { label: t('firmware.col.created'), value: formatTime(f.createdat) },
            { label: t('firmware.field.description'), value: f.description || '—' },
          ]}
        />
      </Card>
      <Card
        bordered={false}
        title={`${t('firmware.detail.versions')} (${versions.data?.total ?? f.version_count})`}
        extra={
          <Button type="primary" icon={<IconPlus />} onClick={addVersion}>
            {t('firmware.version.add')}
          </Button>
        }
      >
        <Table<FirmwareVersion>
          rowKey="id"
          scroll={{ x: 'max-content' }}
          loading={versions.isFetching}
          columns={columns}
          data={versions.data?.data ?? []}
          noDataElement={
            <Empty
              description={
                <Space direction="vertical" size={8}>
                  <span>{t('firmware.version.empty')}</span>
                  <span className={styles.emptyHint}>{t('firmware.version.empty.hint')}</span>
                  <Button type="primary" size="small" onClick={addVersion}>
                    {t('firmware.version.add')}
                  </Button>
                </Space>
              }
            />
          }
          pagination={listPagination(params, setParams, versions.data?.total, (total) =>
            t('firmware.total', { total }),
          )}
        />
      </Card>
    </PageContainer>
  );
}
