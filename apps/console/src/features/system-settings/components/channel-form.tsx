import {
  SECRET_MASK,
  type NotifyChannelName,
  type SystemSettingsView,
} from '@cellhub/contract/system-settings';
import { Button, Form, Message, Space, type FormInstance } from '@arco-design/web-react';
import { useState, type ReactNode } from 'react';
import type { Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveChannel, type ChannelBodies } from '../api';
import SendTestDialog from './send-test-dialog';

/** The form's values: the channel's settings with secret fields emptied (the server answers them masked). */
export function formValuesOf<C extends NotifyChannelName>(
  view: SystemSettingsView,
  channel: C,
): ChannelBodies[C] {
  const values = { ...view[channel] } as Record<string, unknown>;
  for (const [k, v] of Object.entries(values)) if (v === SECRET_MASK) values[k] = '';
  return values as ChannelBodies[C];
}

/** Which secret fields are stored (answered masked). */
export const isSetIn = (view: SystemSettingsView, channel: NotifyChannelName, field: string): boolean =>
  (view[channel] as Record<string, unknown>)[field] === SECRET_MASK;

/** Puts 10113 refusals under their fields; anything else as a toast (403 is handled by the request layer). */
function showSaveError(form: FormInstance, e: unknown): void {
  if (!(e instanceof ApiError)) return;
  if (e.code === 10113 && Array.isArray(e.details) && e.details.length) {
    for (const d of e.details as { field: string; message: string }[]) {
      form.setFields({ [d.field]: { error: { message: d.message } } });
    }
  } else if (e.httpStatus !== 403) Message.error(e.message);
}

/**
 * One channel's settings: the fields (children), Save and Send test. The form is keyed by the saved settings, so a
 * save resets it to what the server now holds (secrets empty again, their "Set" placeholder updated).
 */
export default function ChannelForm<C extends NotifyChannelName>({
  channel,
  view,
  t,
  form,
  children,
}: {
  channel: C;
  view: SystemSettingsView;
  t: Translate;
  form: FormInstance<ChannelBodies[C]>;
  children: ReactNode;
}) {
  const save = useSaveChannel(channel);
  const [testing, setTesting] = useState(false);
  const [dirty, setDirty] = useState(false);

  const submit = async () => {
    const values = await form.validate();
    try {
      const saved = await save.mutateAsync(values);
      // Secrets empty again: the "Set" placeholder now speaks for them.
      (form as unknown as FormInstance).setFieldsValue(formValuesOf(saved, channel));
      setDirty(false);
      Message.success(t('systemSetting.saved'));
    } catch (e) {
      showSaveError(form as unknown as FormInstance, e);
    }
  };

  return (
    <>
      <Form<ChannelBodies[C]>
        form={form}
        layout="vertical"
        initialValues={formValuesOf(view, channel)}
        onValuesChange={() => setDirty(true)}
        onSubmit={() => void submit()}
        data-testid={`system-setting-${channel}`}
      >
        {children}
        <Space>
          <Button type="primary" htmlType="submit" loading={save.isPending}>
            {t('systemSetting.save')}
          </Button>
          <Button onClick={() => setTesting(true)}>{t('systemSetting.test')}</Button>
        </Space>
      </Form>
      <SendTestDialog
        channel={channel}
        visible={testing}
        dirty={dirty}
        defaultTo={defaultTarget(view, channel)}
        onClose={() => setTesting(false)}
        t={t}
      />
    </>
  );
}

function defaultTarget(view: SystemSettingsView, channel: NotifyChannelName): string {
  const targets = view.test_targets;
  if (channel === 'sms') return targets.phone ?? '';
  if (channel === 'email') return targets.email ?? '';
  return targets.wechat_openid ?? '';
}
