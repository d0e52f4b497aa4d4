import {
  MAP_TILE_PROVIDERS,
  type MapTileProvider,
  type MapTileSettingsBody,
  type MapTileSettingsView,
  SECRET_MASK,
} from '@cellhub/contract/map-tiles';
import {
  Alert,
  Button,
  Form,
  type FormInstance,
  Input,
  Message,
  Radio,
  Space,
  Typography,
} from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveMapTiles } from '../api';
import { SecretInput } from './secret-input';

const valuesOf = (view: MapTileSettingsView): MapTileSettingsBody => ({
  provider: view.provider,
  custom_url: view.custom_url,
  tianditu_key: '',
});

/** Server refusals (10113 details) are codes: shown under their field in the user's language. */
const reasonOf = (t: Translate, code: string) => {
  const key = `systemSetting.map.error.${code}`;
  const text = t(key);
  return text === key ? code : text;
};

/** System settings > Map: the tile source of the device location map (docs/configuration.md "Map tiles"). */
export default function MapSettingsForm({ view, t }: { view: MapTileSettingsView; t: Translate }) {
  const [form] = Form.useForm<MapTileSettingsBody>();
  const save = useSaveMapTiles();
  const provider = Form.useWatch('provider', form as unknown as FormInstance) as MapTileProvider | undefined;
  const keySet = view.tianditu_key === SECRET_MASK;

  const submit = async () => {
    const values = await form.validate();
    try {
      const saved = await save.mutateAsync({
        ...values,
        custom_url: values.provider === 'custom' ? (values.custom_url ?? '').trim() : '',
      });
      form.setFieldsValue(valuesOf(saved));
      Message.success(t('systemSetting.saved'));
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (e.code === 10113 && Array.isArray(e.details) && e.details.length) {
        for (const d of e.details as { field: string; message: string }[]) {
          form.setFields({ [d.field]: { error: { message: reasonOf(t, d.message) } } });
        }
      } else if (e.httpStatus !== 403) Message.error(e.message);
    }
  };

  return (
    <Form<MapTileSettingsBody>
      form={form}
      layout="vertical"
      initialValues={valuesOf(view)}
      onSubmit={() => void submit()}
      data-testid="system-setting-map"
    >
      <Alert type="info" content={t('systemSetting.map.help')} style={{ marginBottom: 16 }} />
      <Form.Item label={t('systemSetting.map.provider')} field="provider" rules={[{ required: true }]}>
        <Radio.Group direction="vertical">
          {MAP_TILE_PROVIDERS.map((p) => (
            <Radio key={p} value={p}>
              {t(`systemSetting.map.provider.${p}`)}
              <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
                {t(`systemSetting.map.provider.${p}.desc`)}
              </Typography.Text>
            </Radio>
          ))}
        </Radio.Group>
      </Form.Item>
      {provider === 'custom' && (
        <Form.Item
          label={t('systemSetting.map.custom_url')}
          field="custom_url"
          extra={t('systemSetting.map.custom_url.extra')}
          rules={[{ required: true, message: t('systemSetting.map.error.required') }]}
        >
          <Input
            maxLength={512}
            placeholder="https://{s}.tiles.example.com/{z}/{x}/{y}.png"
            autoComplete="off"
          />
        </Form.Item>
      )}
      {provider === 'tianditu' && (
        <Form.Item
          label={t('systemSetting.map.tianditu_key')}
          field="tianditu_key"
          extra={t('systemSetting.map.tianditu_key.extra')}
          rules={keySet ? [] : [{ required: true, message: t('systemSetting.map.error.required') }]}
        >
          <SecretInput isSet={keySet} t={t} />
        </Form.Item>
      )}
      <Typography.Paragraph type="secondary">
        {t(`systemSetting.map.source.${view.source}`)}
      </Typography.Paragraph>
      <Space>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {t('systemSetting.save')}
        </Button>
      </Space>
    </Form>
  );
}
