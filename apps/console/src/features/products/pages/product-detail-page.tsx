import { Button, Card, Descriptions, Message, Popconfirm, Space, Tabs, Tag } from '@arco-design/web-react';
import { IconDelete, IconEdit } from '@arco-design/web-react/icon';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { recordState } from '../../../components/result-page/result-page';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteProduct, useProduct } from '../api';
import ConfigTab from '../components/config-tab';
import DevicesTab from '../components/devices-tab';
import PlatformTab from '../components/platform-tab';
import PropertiesTab from '../components/properties-tab';
import SecretField from '../components/secret-field';
import { deleteRefusal } from '../delete-refusal';
import locale from '../locale';
import styles from './product.module.css';

const TABS = ['overview', 'properties', 'devices', 'platform', 'config'] as const;

export default function ProductDetailPage() {
  const t = useLocale(locale);
  const { productKey = '' } = useParams();
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(search.get('tab') ?? '') ? search.get('tab')! : 'overview';
  const product = useProduct(productKey);
  const p = product.data;
  const remove = useDeleteProduct();

  const state = recordState(product, { back: '/product/list', subject: productKey });
  if (state || !p) return state;
  // A user with a device of the product reads it: no actions, and the server sends no secrets to show.
  const manage = p.access === 'manage';

  const onDelete = () =>
    remove.mutateAsync(p.product_key).then(
      () => {
        Message.success(t('product.delete.done'));
        void navigate('/product/list');
      },
      (e: unknown) => {
        const refusal = deleteRefusal(e);
        Message.error(
          refusal ? t('product.delete.hasDevices', { count: refusal.device_count }) : (e as Error).message,
        );
      },
    );

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={
          <Space>
            {p.name}
            <Tag className={styles.mono}>{p.product_key}</Tag>
          </Space>
        }
        extra={
          manage && (
            <Space>
              <Button icon={<IconEdit />} onClick={() => void navigate(`/product/edit/${p.product_key}`)}>
                {t('product.edit')}
              </Button>
              <Popconfirm title={t('product.delete.confirm')} onOk={onDelete}>
                <Button status="danger" icon={<IconDelete />}>
                  {t('product.delete')}
                </Button>
              </Popconfirm>
            </Space>
          )
        }
      >
        <Tabs activeTab={tab} onChange={(key) => setSearch({ tab: key }, { replace: true })}>
          <Tabs.TabPane key="overview" title={t('product.tab.overview')}>
            <Descriptions
              column={2}
              labelStyle={{ width: 180 }}
              data={[
                { label: t('product.field.name'), value: p.name },
                {
                  label: t('product.field.productKey'),
                  value: <span className={styles.mono}>{p.product_key}</span>,
                },
                ...(manage
                  ? [
                      {
                        label: t('product.secret'),
                        value: (
                          <div>
                            <SecretField productKey={p.product_key} secret={p.product_secret} t={t} />
                            <div className={styles.help} data-testid="product-secret-help">
                              {t('product.secret.help')}
                            </div>
                          </div>
                        ),
                      },
                    ]
                  : []),
                { label: t('product.field.productCode'), value: p.product_code || '—' },
                { label: t('product.field.nodetype'), value: t(`product.nodetype.${p.nodetype}`) },
                { label: t('product.field.protocol'), value: p.protocol },
                { label: t('product.field.dataformat'), value: t(`product.dataformat.${p.dataformat}`) },
                { label: t('product.field.mqttInterval'), value: p.mqtt_interval },
                { label: t('product.field.propertyInterval'), value: p.property_interval },
                { label: t('product.field.configPostSize'), value: p.config_post_size },
                {
                  label: t('product.field.retentionDays'),
                  value: p.retention_days ?? t('product.retention.forever'),
                },
                {
                  label: t('product.field.platform'),
                  value: p.iot_platform_id ? (
                    <Tag color="arcoblue">{p.iot_platform_name}</Tag>
                  ) : (
                    <span className={styles.muted}>{t('product.none')}</span>
                  ),
                },
                { label: t('product.col.devices'), value: p.device_count },
                { label: t('product.col.configDifferent'), value: p.config_version_different },
                { label: t('product.col.created'), value: formatTime(p.createdat) },
                { label: t('product.field.description'), value: p.description || '—' },
              ]}
            />
          </Tabs.TabPane>
          <Tabs.TabPane key="properties" title={`${t('product.tab.properties')} (${p.properties.length})`}>
            <PropertiesTab product={p} t={t} />
          </Tabs.TabPane>
          <Tabs.TabPane key="devices" title={`${t('product.tab.devices')} (${p.device_count})`}>
            <DevicesTab productKey={p.product_key} t={t} />
          </Tabs.TabPane>
          {manage && (
            <Tabs.TabPane key="platform" title={t('product.tab.platform')}>
              <PlatformTab product={p} t={t} />
            </Tabs.TabPane>
          )}
          {manage && (
            <Tabs.TabPane key="config" title={t('product.tab.config')}>
              <ConfigTab key={p.updatedat} product={p} t={t} />
            </Tabs.TabPane>
          )}
        </Tabs>
      </Card>
    </PageContainer>
  );
}
