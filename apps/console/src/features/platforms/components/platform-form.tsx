import {
  PLATFORM_TYPES,
  SECRET_MASK,
  type PlatformBody,
  type PlatformItem,
  type PlatformType,
} from '@cellhub/contract/platforms';
import {
  Alert,
  Form,
  Grid,
  Input,
  InputNumber,
  Message,
  Select,
  Switch,
  type FormInstance,
} from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { configFor, initialConfig, PLATFORM_FIELDS, type PlatformField } from '../platform-fields';

const { Row, Col } = Grid;

export interface PlatformValues {
  name: string;
  platform_type: PlatformType;
  platform_config: Record<string, unknown>;
}

export const newPlatformValues = (type: PlatformType = 'aliyun'): PlatformValues => ({
  name: '',
  platform_type: type,
  platform_config: initialConfig(type),
});

export const valuesOf = (p: PlatformItem): PlatformValues => ({
  name: p.name,
  platform_type: p.platform_type,
  platform_config: { ...p.platform_config },
});

export const bodyOf = (v: PlatformValues): PlatformBody =>
  ({
    name: v.name.trim(),
    platform_type: v.platform_type,
    platform_config: configFor(v.platform_type, v.platform_config ?? {}),
  }) as PlatformBody;

/** A refused save: 10113 details name `platform_config.<field>`, which are this form's field names too. */
export function showPlatformError(form: FormInstance<PlatformValues>, e: unknown): void {
  if (!(e instanceof ApiError)) return;
  if (e.code === 10113 && Array.isArray(e.details) && e.details.length) {
    for (const d of e.details as { field: string; message: string }[]) {
      form.setFields({ [d.field]: { error: { message: d.message } } });
    }
  } else if (e.httpStatus !== 403) Message.error(e.message);
}

/** Form.Item hands its child `value` / `onChange` (or `checked`); they go on to the real control. */
interface ControlProps {
  id?: string;
  value?: unknown;
  checked?: boolean;
  onChange?: (value: unknown) => void;
}

function FieldInput({
  f,
  t,
  masked,
  id,
  value,
  checked,
  onChange,
}: { f: PlatformField; t: Translate; masked: boolean } & ControlProps) {
  switch (f.kind) {
    case 'number':
      return (
        <InputNumber
          id={id}
          min={1}
          max={65535}
          precision={0}
          value={value as number | undefined}
          onChange={onChange}
        />
      );
    case 'bool':
      return <Switch id={id} checked={!!checked} onChange={onChange} />;
    case 'select':
      return (
        <Select
          id={id}
          value={value as string | number | undefined}
          onChange={onChange}
          options={(f.options ?? []).map((o) => ({
            value: o,
            label: f.name === 'securemode' ? t(`platform.field.securemode.${o}`) : String(o),
          }))}
        />
      );
    case 'secret':
      return (
        <Input.Password
          id={id}
          value={value as string | undefined}
          onChange={onChange}
          autoComplete="new-password"
          maxLength={512}
          placeholder={masked ? t('platform.secret.kept') : t('platform.secret.placeholder')}
        />
      );
    default:
      return <Input id={id} value={value as string | undefined} onChange={onChange} maxLength={253} />;
  }
}

/** Name, type and the per-type platform_config fields; `editing` locks nothing but shows masked secrets as kept. */
export default function PlatformFormFields({
  form,
  t,
  editing,
}: {
  form: FormInstance<PlatformValues>;
  t: Translate;
  editing?: boolean;
}) {
  const type = (Form.useWatch('platform_type', form) as PlatformType | undefined) ?? 'aliyun';
  const config = (Form.useWatch('platform_config', form) as Record<string, unknown> | undefined) ?? {};
  return (
    <>
      <Alert type="info" content={t('platform.help')} style={{ marginBottom: 16 }} />
      <Row gutter={24}>
        <Col span={12}>
          <Form.Item
            label={t('platform.name')}
            field="name"
            rules={[{ required: true, message: t('platform.name.required') }]}
          >
            <Input maxLength={64} />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item label={t('platform.type')} field="platform_type">
            <Select
              options={PLATFORM_TYPES.map((v) => ({ value: v, label: t(`platform.type.${v}`) }))}
              onChange={(v: PlatformType) => {
                if (!editing || v !== type) form.setFieldValue('platform_config', initialConfig(v));
              }}
            />
          </Form.Item>
        </Col>
        {PLATFORM_FIELDS[type].map((f) => (
          <Col span={12} key={`${type}.${f.name}`}>
            <Form.Item
              label={t(`platform.field.${f.name}`)}
              field={`platform_config.${f.name}`}
              triggerPropName={f.kind === 'bool' ? 'checked' : 'value'}
              extra={
                f.name === 'host' && (type === 'aliyun' || type === 'tencent')
                  ? t('platform.field.host.help')
                  : undefined
              }
              rules={f.required ? [{ required: true, message: t('platform.required') }] : undefined}
            >
              <FieldInput f={f} t={t} masked={config[f.name] === SECRET_MASK} />
            </Form.Item>
          </Col>
        ))}
      </Row>
    </>
  );
}
