import { Alert, Badge, Card, Empty, Skeleton, Space, Table, Tag } from '@arco-design/web-react';
import type { DeviceConfig } from '@cellhub/contract/device-config';
import { useMemo } from 'react';
import { useLocale } from '../../../../lib/i18n';
import { toast } from '../../../../lib/toast';
import shareLocale from '../../../../components/share-dialog/locale';
import { useDeviceConfig, useSaveDeviceConfig } from '../../detail-api';
import locale from '../../locale/detail-index';
import { diffConfig, type ConfigDiffKind } from './config-diff';
import ConfigForm from './config-form';
import styles from './detail.module.css';

const KIND_COLOR: Record<ConfigDiffKind, string> = {
  changed: 'orange',
  not_reported: 'gray',
  only_reported: 'arcoblue',
};

const show = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
const isEmpty = (c: DeviceConfig) => Object.keys(c).length === 0;

/** Expected and reported versions (live), the editor, and the field-by-field difference. */
export default function ConfigPanel({ sn, readOnly = false }: { sn: string; readOnly?: boolean }) {
  const t = useLocale(locale);
  const ts = useLocale(shareLocale);
  const state = useDeviceConfig(sn);
  const save = useSaveDeviceConfig(sn);
  const s = state.data;
  const diff = useMemo(() => (s ? diffConfig(s.expect_config, s.config) : []), [s]);

  if (!s)
    return (
      <Card bordered={false}>
        <Skeleton text={{ rows: 6 }} animation />
      </Card>
    );

  // Nothing expected yet: start from what the device runs, so a first edit changes only what the user touches.
  const base = s.expect_config_version > 0 && !isEmpty(s.expect_config) ? s.expect_config : s.config;
  const synced = !s.config_version_different;

  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <Card bordered={false}>
        <div className={styles.versions}>
          <div>
            <div className={styles.url}>{t('deviceDetail.config.expectVersion')}</div>
            <div className={styles.versionNumber} data-testid="config-expect-version">
              {s.expect_config_version}
            </div>
          </div>
          <div>
            <div className={styles.url}>{t('deviceDetail.config.reportVersion')}</div>
            <div className={styles.versionNumber} data-testid="config-report-version">
              {s.config_version}
            </div>
          </div>
          <span data-testid="config-sync">
            {synced ? (
              <Badge status="success" text={t('deviceDetail.config.synced')} />
            ) : (
              <Badge status="processing" text={t('deviceDetail.config.pending')} />
            )}
          </span>
        </div>
      </Card>
      {readOnly ? (
        <Alert type="info" content={ts('shareDialog.readonly.config')} data-testid="config-readonly" />
      ) : (
        <Card bordered={false} title={t('deviceDetail.tab.config')}>
          <ConfigForm
            key={s.expect_config_version}
            base={base}
            saving={save.isPending}
            onSave={async (config) => {
              const next = await save.mutateAsync(config);
              toast(
                'success',
                t(next.sent ? 'deviceDetail.config.saved' : 'deviceDetail.config.savedOffline', {
                  version: next.expect_config_version,
                }),
              );
            }}
          />
        </Card>
      )}
      <Card bordered={false} title={t('deviceDetail.config.diff')}>
        {diff.length === 0 ? (
          <Empty description={t('deviceDetail.config.diff.none')} />
        ) : (
          <Table
            rowKey="path"
            data={diff}
            data-testid="config-diff"
            pagination={diff.length > 20 ? { pageSize: 20 } : false}
            columns={[
              {
                title: t('deviceDetail.config.diff.path'),
                render: (_: unknown, r) => <span className={styles.mono}>{r.path}</span>,
              },
              {
                title: t('deviceDetail.config.diff.expected'),
                render: (_: unknown, r) => <span className={styles.mono}>{show(r.expected)}</span>,
              },
              {
                title: t('deviceDetail.config.diff.reported'),
                render: (_: unknown, r) => <span className={styles.mono}>{show(r.reported)}</span>,
              },
              {
                title: '',
                width: 120,
                render: (_: unknown, r) => (
                  <Tag color={KIND_COLOR[r.kind]}>{t(`deviceDetail.config.diff.${r.kind}`)}</Tag>
                ),
              },
            ]}
          />
        )}
      </Card>
    </Space>
  );
}
