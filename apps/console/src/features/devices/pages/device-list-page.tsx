import type { DeviceListItem } from '@cellhub/contract/devices';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import { Badge, Button, Tag, Tooltip, type TableColumnProps } from '@arco-design/web-react';
import { IconShareAlt } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ProductFilter } from '../../../components/product-select';
import {
  ButtonAction,
  ConfirmAction,
  LinkAction,
  RowActions,
  RowLink,
} from '../../../components/row-actions';
import shareLocale from '../../../components/share-dialog/locale';
import { SharedMark } from '../../../components/share-dialog/shared-mark';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { useDeviceAccess, useDeviceEvents, useSubscribedDevices } from '../../../lib/realtime';
import { useRole } from '../../../lib/user';
import {
  DEVICES_KEY,
  deviceListKey,
  useDeleteDevice,
  useDeviceList,
  useUnbindDevice,
  type DeviceFilter,
  type DeviceListParams,
} from '../api';
import { ColumnPicker } from '../components/column-picker';
import { ExportMenu } from '../components/export-menu';
import {
  ADMIN_COLUMNS,
  cellText,
  DEVICE_COLUMNS,
  loadColumns,
  saveColumns,
  type DeviceColumn,
} from '../device-columns';
import { applyDeviceEvent } from '../live-rows';
import { defsOf, formatValues } from '../property-labels';
import locale from '../locale';
import styles from './device-pages.module.css';

// The share dialog downloads when first opened.
const ShareDialog = lazy(() => import('../../../components/share-dialog/share-dialog'));

const LIVE_TYPES = ['device.online', 'device.properties', 'device.info', 'device.config'] as const;

/** /device/list: the caller's devices (every device for an admin), patched live while they report. */
export default function DeviceListPage() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const navigate = useNavigate();
  const isAdmin = useRole() === 'admin';
  const { form, params, setParams, search } = useKeywordList<DeviceListParams, DeviceFilter>();
  const query = useDeviceList(params);
  const { data } = query;
  const unbind = useUnbindDevice();
  const remove = useDeleteDevice();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<DeviceColumn[]>(() => loadColumns());
  const ts = useLocale(shareLocale);
  // Rows ticked for a batch share (only the caller's own devices can be), and the devices the dialog shares.
  const [selected, setSelected] = useState<string[]>([]);
  const [sharing, setSharing] = useState<string[] | null>(null);
  /** The caller's own device (or any owned one for an admin): it may be shared, unbound. */
  const ownRow = (r: DeviceListItem) => r.uid !== null && !r.share;

  const sns = useMemo(() => (data?.data ?? []).map((r) => r.sn), [data]);
  const live = useDeviceEvents(sns.length ? { sns, types: LIVE_TYPES } : null, (e: DeviceEvent) => {
    queryClient.setQueryData(deviceListKey(params), (old: typeof data) => applyDeviceEvent(old, e));
  });
  // A share of a listed device was made, changed or ended: read the page again (a revoked device leaves it).
  useDeviceAccess(sns, () => void queryClient.invalidateQueries({ queryKey: DEVICES_KEY }));
  // Events flow once the server confirms the page's devices: read the page again then, so a device that connected
  // between the load and the subscription is not left showing offline.
  useSubscribedDevices(sns, () => void queryClient.invalidateQueries({ queryKey: deviceListKey(params) }));

  const available = DEVICE_COLUMNS.filter((c) => isAdmin || !ADMIN_COLUMNS.includes(c));
  const visible = shown.filter((c) => available.includes(c));
  const defs = useMemo(() => defsOf(data?.extra?.property_defs), [data]);
  // A device with a data template has its own entry (`product_key/sn`: the product's and the template's).
  const valuesText = (r: DeviceListItem) =>
    formatValues(r.last_values, defs.get(`${r.product_key}/${r.sn}`) ?? defs.get(r.product_key), lang);
  const onlineText = (o: 0 | 1) => (o ? t('device.online') : t('device.offline'));
  const detailUrl = (r: DeviceListItem) =>
    `/device/detail/${encodeURIComponent(r.product_key)}/${encodeURIComponent(r.sn)}`;

  const render: Partial<Record<DeviceColumn, TableColumnProps<DeviceListItem>['render']>> = {
    sn: (_, r) => (
      <div className={styles.snCell}>
        <RowLink to={detailUrl(r)} className={styles.mono}>
          {r.sn}
        </RowLink>
        <SharedMark share={r.share} />
      </div>
    ),
    online: (_, r) =>
      r.online ? (
        <Badge status="success" text={t('device.online')} />
      ) : (
        <Badge status="default" text={t('device.offline')} />
      ),
    owner: (_, r) => r.owner ?? <Tag size="small">{t('device.stock')}</Tag>,
    last_values: (_, r) => {
      const text = valuesText(r);
      return text ? (
        <Tooltip content={text}>
          <span className={styles.values}>{text}</span>
        </Tooltip>
      ) : (
        <span className={styles.muted}>-</span>
      );
    },
    lastcommunicationat: (_, r) =>
      r.lastcommunicationat ? (
        <span className={styles.nowrap}>{formatTime(r.lastcommunicationat)}</span>
      ) : (
        <span className={styles.muted}>{t('device.never')}</span>
      ),
    config_version: (_, r) => (
      <span className={r.config_version_different ? styles.warn : undefined}>
        {r.config_version}/{r.expect_config_version}
      </span>
    ),
  };

  const columns: TableColumnProps<DeviceListItem>[] = [
    ...visible.map((c): TableColumnProps<DeviceListItem> => ({
      title: t(`device.col.${c}`),
      dataIndex: c,
      ellipsis: c === 'description' || c === 'address',
      render:
        render[c] ??
        ((_: unknown, r: DeviceListItem) => {
          const text = cellText(r, c, onlineText, valuesText);
          return text === '' ? <span className={styles.muted}>-</span> : text;
        }),
    })),
    {
      title: t('device.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <RowActions>
          <LinkAction to={detailUrl(r)}>{t('device.action.detail')}</LinkAction>
          {ownRow(r) && (
            <ButtonAction onClick={() => setSharing([r.sn])}>{ts('shareDialog.action')}</ButtonAction>
          )}
          {ownRow(r) && (
            <ConfirmAction
              title={t('device.unbind.confirm')}
              hint={t('device.unbind.hint')}
              status="warning"
              onConfirm={() => unbind.mutateAsync(r.sn)}
              done={t('device.unbind.done')}
            >
              {t('device.action.unbind')}
            </ConfirmAction>
          )}
          {isAdmin && (
            <ConfirmAction
              title={t('device.delete.confirm')}
              hint={t('device.delete.hint')}
              status="danger"
              onConfirm={() => remove.mutateAsync(r.sn)}
              done={t('device.delete.done')}
            >
              {t('device.action.delete')}
            </ConfirmAction>
          )}
        </RowActions>
      ),
    },
  ];

  const bind = (
    <>
      <Button onClick={() => void navigate('/device/bind')}>{t('device.action.bind')}</Button>
      <Tooltip content={ts('shareDialog.action.hint')}>
        <Button
          icon={<IconShareAlt />}
          disabled={selected.length === 0}
          onClick={() => setSharing(selected)}
          data-testid="device-share-selected"
        >
          {selected.length
            ? ts('shareDialog.action.selected', { count: selected.length })
            : ts('shareDialog.action')}
        </Button>
      </Tooltip>
    </>
  );

  return (
    <ListPage<DeviceListItem, DeviceListParams>
      title={t('device.list.title')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('device.filter.keyword')}
            placeholder={t('device.filter.keyword.placeholder')}
            onSearch={search}
          />
          <ProductFilter label={t('device.filter.product')} placeholder={t('device.filter.all')} />
          <ChoiceFilter
            label={t('device.filter.online')}
            field="online"
            placeholder={t('device.filter.all')}
            options={[
              { label: t('device.online'), value: '1' },
              { label: t('device.offline'), value: '0' },
            ]}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('device.action.create'), to: '/device/create' }}
      toolbarStart={bind}
      live={sns.length ? { status: live, open: t('device.live.open'), off: t('device.live.off') } : undefined}
      toolbarEnd={
        <>
          <ExportMenu
            filter={{ keyword: params.keyword, product_key: params.product_key, online: params.online }}
            total={data?.total ?? 0}
            columns={visible}
            t={t}
          />
          <ColumnPicker all={available} value={visible} onChange={(c) => setShown(saveColumns(c))} t={t} />
        </>
      }
      rowKey="sn"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      quietRefetch
      pageSizes={[10, 20, 50, 100]}
      // A large fleet is counted up to a cap past this page: the total is then "at least".
      total={(total) =>
        data?.totalExact === false
          ? t('device.totalAtLeast', { total: total.toLocaleString() })
          : t('device.total', { total })
      }
      failed={t('device.loadError')}
      empty={
        <ListEmpty
          text={t('device.empty')}
          hint={t('device.empty.hint')}
          actions={
            <>
              <Button type="primary" size="small" onClick={() => void navigate('/device/create')}>
                {t('device.action.create')}
              </Button>
              <Button size="small" onClick={() => void navigate('/device/bind')}>
                {t('device.action.bind')}
              </Button>
            </>
          }
        />
      }
      tableProps={{
        scroll: { x: 'max-content' },
        rowSelection: {
          type: 'checkbox',
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys as string[]),
          checkboxProps: (r) => ({ disabled: !ownRow(r) }),
        },
      }}
    >
      {sharing && (
        <Suspense fallback={null}>
          <ShareDialog
            visible
            sns={sharing}
            onClose={() => {
              setSharing(null);
              setSelected([]);
            }}
          />
        </Suspense>
      )}
    </ListPage>
  );
}
