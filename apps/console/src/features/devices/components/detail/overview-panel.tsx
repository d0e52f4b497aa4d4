import { Badge, Card, Descriptions, Grid, Space } from '@arco-design/web-react';
import type { DeviceDetail } from '@cellhub/contract/devices';
import type { ReactNode } from 'react';
import { SecretField } from '../../../../components/secret-field';
import { formatTime } from '../../../../lib/format-time';
import { useLocale, type Translate } from '../../../../lib/i18n';
import locale from '../../locale/detail-index';
import DroppedMessages from './dropped-messages';
import LocationMap from './location-map';
import QrLabel from './qr-label';

const dash = (v: ReactNode) => (v === null || v === undefined || v === '' ? '-' : v);

export function OnlineBadge({ d, t }: { d: Pick<DeviceDetail, 'online' | 'disabled'>; t: Translate }) {
  if (d.disabled) return <Badge status="default" text={t('deviceDetail.disabled')} />;
  return d.online === 1 ? (
    <Badge status="success" text={t('deviceDetail.online')} data-testid="device-online" />
  ) : (
    <Badge status="default" text={t('deviceDetail.offline')} data-testid="device-offline" />
  );
}

const labelStyle = { color: 'var(--color-text-3)', whiteSpace: 'nowrap' as const };

/** Basic, cellular and version information, the location and the label QR code. */
export default function OverviewPanel({ d }: { d: DeviceDetail }) {
  const t = useLocale(locale);
  const item = (key: string, value: ReactNode) => ({
    label: t(`deviceDetail.field.${key}`),
    value: dash(value),
  });
  const basic = [
    item('sn', <span data-testid="device-sn">{d.sn}</span>),
    item('name', d.name),
    item('product', `${d.product_name} (${d.product_key})`),
    item('status', <OnlineBadge d={d} t={t} />),
    // The secret is the owner's (and an admin's): a share never shows it.
    ...(d.share ? [] : [item('secret', <SecretField secret={d.secret} testId="device-secret" />)]),
    item('protocol', d.protocol),
    item('loginProtocol', d.login_protocol),
    item('uplink', d.uplink),
    item('activatedat', formatTime(d.activatedat)),
    item(
      'lastcommunicationat',
      <span data-testid="device-last-seen">{formatTime(d.lastcommunicationat)}</span>,
    ),
    item('createdat', formatTime(d.createdat)),
    item('dropped', <DroppedMessages sn={d.sn} fallback={d.rejected_count} />),
    item('address', d.address),
    item('description', d.description),
  ];
  const cellular = [
    item('rssi', d.rssi === null ? null : `${d.rssi} dBm`),
    item('csq', d.csq),
    item('signal', d.signal_strength),
    item('cellularMode', d.cellular_mode),
    item('band', d.band),
    item('pci', d.pci),
    item('cellId', d.cell_id),
    item('ip', d.ipaddress),
    item('imei', d.imei),
    item('imsi', d.imsi),
    item('iccid', d.iccid),
    item('phone', d.phone),
  ];
  const versions = [
    item('fw', d.fw_version),
    item('hw', d.hw_version),
    item('bootloader', d.bootloader_version),
  ];
  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <Card bordered={false} title={t('deviceDetail.basic')}>
        <Descriptions column={{ xs: 1, md: 2, xl: 3 }} labelStyle={labelStyle} data={basic} />
      </Card>
      <Card bordered={false} title={t('deviceDetail.cellular')}>
        <div data-testid="device-cellular">
          <Descriptions column={{ xs: 1, md: 2, xl: 3 }} labelStyle={labelStyle} data={cellular} />
        </div>
      </Card>
      <Card bordered={false} title={t('deviceDetail.versions')}>
        <Descriptions column={{ xs: 1, md: 3 }} labelStyle={labelStyle} data={versions} />
      </Card>
      <Grid.Row gutter={16}>
        <Grid.Col xs={24} lg={16}>
          <Card bordered={false} title={t('deviceDetail.location')} style={{ height: '100%' }}>
            <LocationMap lat={d.latitude} lng={d.longitude} title={d.name || d.sn} />
          </Card>
        </Grid.Col>
        <Grid.Col xs={24} lg={8}>
          <Card bordered={false} title={t('deviceDetail.qr')} style={{ height: '100%' }}>
            <QrLabel sn={d.sn} name={d.name} product={d.product_name} />
          </Card>
        </Grid.Col>
      </Grid.Row>
    </Space>
  );
}
