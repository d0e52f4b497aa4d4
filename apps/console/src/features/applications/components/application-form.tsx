import {
  APPLICATION_ICON_MAX_BYTES,
  APPLICATION_ICON_TYPES,
  APPLICATION_PLATFORMS,
  type ApplicationItem,
  type ApplicationPlatform,
} from '@cellhub/contract/applications';
import { Button, Form, Input, Message, Select, Space } from '@arco-design/web-react';
import { IconDelete, IconUpload } from '@arco-design/web-react/icon';
import { useEffect, useRef, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveApplication } from '../api';
import locale from '../locale';
import { AppIcon } from './app-icon';
import styles from './applications.module.css';

interface Values {
  name: string;
  platform: ApplicationPlatform;
  description?: string;
}

const readDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });

/**
 * The icon field: a picked PNG, JPEG or WebP of at most 64 KB becomes a data URL shown at once (the server checks
 * the bytes again). SVG is refused here as there, since it can carry script.
 */
export function IconPicker({
  value,
  name,
  platform,
  onChange,
  onError,
}: {
  value: string;
  name: string;
  platform: ApplicationPlatform;
  onChange: (icon: string) => void;
  onError: (message: string | undefined) => void;
}) {
  const t = useLocale(locale);
  const input = useRef<HTMLInputElement>(null);
  const pick = async (file: File | undefined) => {
    if (!file) return;
    if (!(APPLICATION_ICON_TYPES as readonly string[]).includes(file.type)) {
      onError(t('application.form.icon.badType'));
      return;
    }
    if (file.size > APPLICATION_ICON_MAX_BYTES) {
      onError(t('application.form.icon.tooLarge'));
      return;
    }
    onError(undefined);
    onChange(await readDataUrl(file));
  };
  return (
    <div className={styles.iconPicker}>
      <AppIcon icon={value} name={name || '?'} platform={platform} size={64} />
      <Space direction="vertical" size={4}>
        <Space>
          {/* A plain input: Arco's Upload drops files outside `accept` silently, and a refused SVG must be told. */}
          <input
            ref={input}
            type="file"
            hidden
            accept={APPLICATION_ICON_TYPES.join(',')}
            onChange={(e) => {
              void pick(e.target.files?.[0]);
              e.target.value = '';
            }}
          />
          <Button icon={<IconUpload />} onClick={() => input.current?.click()}>
            {t('application.form.icon.pick')}
          </Button>
          {value && (
            <Button icon={<IconDelete />} onClick={() => onChange('')}>
              {t('application.form.icon.remove')}
            </Button>
          )}
        </Space>
        <span className={styles.muted}>{t('application.form.icon.help')}</span>
      </Space>
    </div>
  );
}

/** Create (no `existing`) or edit an application; server refusals land under their fields. */
export function ApplicationForm({
  existing,
  onSaved,
  onCancel,
}: {
  existing?: ApplicationItem;
  onSaved: (saved: ApplicationItem) => void;
  onCancel: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const save = useSaveApplication();
  const [icon, setIcon] = useState(existing?.icon ?? '');
  const [iconError, setIconError] = useState<string>();
  const name = (Form.useWatch('name', form) as string | undefined) ?? '';
  const platform = (Form.useWatch('platform', form) as ApplicationPlatform | undefined) ?? 'other';

  useEffect(() => {
    if (existing) {
      form.setFieldsValue({
        name: existing.name,
        platform: existing.platform,
        description: existing.description,
      });
      setIcon(existing.icon);
    }
  }, [existing, form]);

  const submit = async () => {
    const values = await form.validate();
    if (iconError) return;
    const body = {
      name: values.name.trim(),
      platform: values.platform,
      description: (values.description ?? '').trim(),
      icon,
    };
    try {
      const saved = await save.mutateAsync({ id: existing?.id, body });
      Message.success(existing ? t('application.form.saved') : t('application.form.created'));
      onSaved(saved);
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      const details = Array.isArray(e.details) ? (e.details as { field: string; message: string }[]) : [];
      if (e.code === 50001 || e.code === 50002 || details.some((d) => d.field === 'icon')) {
        setIconError(e.message);
      } else if (e.code === 10113 && details.length > 0) {
        for (const d of details) form.setFields({ [d.field]: { error: { message: d.message } } });
      } else if (e.httpStatus !== 403) {
        Message.error(e.message);
      }
    }
  };

  return (
    <Form<Values>
      form={form}
      layout="vertical"
      initialValues={{ platform: 'windows' }}
      onSubmit={() => void submit()}
      scrollToFirstError
    >
      <Form.Item
        label={t('application.form.name')}
        field="name"
        rules={[{ required: true, message: t('application.form.name.required') }]}
      >
        <Input maxLength={64} showWordLimit />
      </Form.Item>
      <Form.Item
        label={t('application.form.platform')}
        field="platform"
        rules={[{ required: true, message: t('application.form.platform.required') }]}
      >
        <Select
          options={APPLICATION_PLATFORMS.map((p) => ({ value: p, label: t(`application.platform.${p}`) }))}
        />
      </Form.Item>
      <Form.Item
        label={t('application.form.icon')}
        validateStatus={iconError ? 'error' : undefined}
        help={iconError}
      >
        <IconPicker value={icon} name={name} platform={platform} onChange={setIcon} onError={setIconError} />
      </Form.Item>
      <Form.Item label={t('application.form.description')} field="description">
        <Input.TextArea maxLength={500} showWordLimit autoSize={{ minRows: 3, maxRows: 6 }} />
      </Form.Item>
      <Space className={styles.actions}>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {existing ? t('application.save') : t('application.submit')}
        </Button>
        <Button onClick={onCancel}>{t('application.cancel')}</Button>
      </Space>
    </Form>
  );
}
