/**
 * Shares devices chosen by the caller (one from its detail page, several from the device list): with an account
 * by username or phone, or as a share link whose full URL is shown once to copy. The right radio says what each
 * right allows; an expiry is optional, and so is a link's use count.
 */
import { Alert, Button, Form, Input, InputNumber, Modal, Radio, Space, Tag } from '@arco-design/web-react';
import { IconCopy } from '@arco-design/web-react/icon';
import { SHARE_LINK_MAX_USES, type ShareRight } from '@cellhub/contract/shares';
import { useEffect, useState } from 'react';
import { useLocale } from '../../lib/i18n';
import { ApiError } from '../../lib/request';
import { toast } from '../../lib/toast';
import { copyText } from '../copy-text';
import locale from './locale';
import { useCreateShare, useCreateShareLink } from './share-api';
import { ExpiryField, expiryToIso, RightField } from './share-fields';

type Mode = 'account' | 'link';

interface Values {
  mode: Mode;
  to?: string;
  right: ShareRight;
  expires_at?: unknown;
  max_uses?: number;
}

/** How many serial numbers the dialog lists before "+N". */
const SHOWN_SNS = 8;

/** The address a share link opens: this console's own origin and the path the server answered. */
export const shareLinkUrl = (urlPath: string) => `${window.location.origin}${urlPath}`;

export default function ShareDialog({
  visible,
  sns,
  onClose,
}: {
  visible: boolean;
  sns: string[];
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const share = useCreateShare();
  const makeLink = useCreateShareLink();
  const [link, setLink] = useState<string | null>(null);
  const mode = (Form.useWatch('mode', form) as Mode | undefined) ?? 'account';

  useEffect(() => {
    if (!visible) return;
    setLink(null);
    form.resetFields();
  }, [visible, form]);

  const refused = (e: unknown) => {
    if (!(e instanceof ApiError) || e.httpStatus === 403) return;
    // The code table's text (the request layer's message) and, for 10210, what may have caused it.
    const text =
      e.code === 10210
        ? t('shareDialog.refused.join', { code: e.message, hint: t('shareDialog.refused.10210') })
        : e.message;
    if (mode === 'account' && (e.code === 10210 || e.code === 10212))
      form.setFields({ to: { value: form.getFieldValue('to'), error: { message: text } } });
    else toast('error', text);
  };

  const submit = async () => {
    let v: Values;
    try {
      v = await form.validate();
    } catch {
      return;
    }
    const expires_at = expiryToIso(v.expires_at);
    try {
      if (v.mode === 'link') {
        const created = await makeLink.mutateAsync({
          sns,
          right: v.right,
          expires_at,
          max_uses: v.max_uses ?? null,
        });
        setLink(shareLinkUrl(created.url_path));
      } else {
        const done = await share.mutateAsync({ sns, to: v.to!.trim(), right: v.right, expires_at });
        toast(
          'success',
          `${t('shareDialog.shared', { count: done.created + done.updated })} (${t('shareDialog.shared.detail', done)})`,
        );
        onClose();
      }
    } catch (e) {
      refused(e);
    }
  };

  const copy = () =>
    void copyText(link ?? '').then((ok) =>
      toast(ok ? 'success' : 'error', t(ok ? 'common.copied' : 'common.copyFailed')),
    );

  const pending = share.isPending || makeLink.isPending;
  return (
    <Modal
      title={t('shareDialog.title')}
      visible={visible}
      onCancel={onClose}
      style={{ width: 640 }}
      unmountOnExit
      footer={
        link ? (
          <Button type="primary" onClick={onClose}>
            {t('shareDialog.done')}
          </Button>
        ) : (
          <>
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="primary" loading={pending} onClick={() => void submit()} data-testid="share-submit">
              {t(mode === 'link' ? 'shareDialog.submit.link' : 'shareDialog.submit.account')}
            </Button>
          </>
        )
      }
    >
      {link ? (
        <Space direction="vertical" size={16} style={{ width: '100%' }} data-testid="share-link-result">
          <Alert type="success" content={t('shareDialog.link.ready')} />
          <Input.Group compact style={{ display: 'flex' }}>
            <Input readOnly value={link} data-testid="share-link-url" style={{ flex: 1 }} />
            <Button type="primary" icon={<IconCopy />} onClick={copy}>
              {t('shareDialog.link.copy')}
            </Button>
          </Input.Group>
          <Alert type="warning" content={t('shareDialog.link.once')} />
        </Space>
      ) : (
        <Form<Values>
          form={form}
          layout="horizontal"
          labelCol={{ span: 5 }}
          wrapperCol={{ span: 19 }}
          initialValues={{ mode: 'account', right: 'view' }}
          onSubmit={() => void submit()}
        >
          <Form.Item label={t('shareDialog.devices')}>
            <Space wrap size={[6, 6]} data-testid="share-devices">
              {sns.slice(0, SHOWN_SNS).map((sn) => (
                <Tag key={sn} style={{ fontFamily: 'var(--font-mono, monospace)' }}>
                  {sn}
                </Tag>
              ))}
              {sns.length > SHOWN_SNS ? <Tag>+{sns.length - SHOWN_SNS}</Tag> : null}
              <span style={{ color: 'var(--color-text-3)' }}>
                {t('shareDialog.devices.count', { count: sns.length })}
              </span>
            </Space>
          </Form.Item>
          <Form.Item label={t('shareDialog.mode')} field="mode">
            <Radio.Group type="button">
              <Radio value="account">{t('shareDialog.mode.account')}</Radio>
              <Radio value="link">{t('shareDialog.mode.link')}</Radio>
            </Radio.Group>
          </Form.Item>
          {mode === 'account' ? (
            <Form.Item
              label={t('shareDialog.to')}
              field="to"
              rules={[{ required: true, validator: requiredText(t('shareDialog.to.required')) }]}
            >
              <Input
                placeholder={t('shareDialog.to.placeholder')}
                maxLength={64}
                allowClear
                data-testid="share-to"
              />
            </Form.Item>
          ) : null}
          <RightField />
          <ExpiryField />
          {mode === 'link' ? (
            <Form.Item
              label={t('shareDialog.maxUses')}
              field="max_uses"
              extra={t('shareDialog.maxUses.extra')}
            >
              <InputNumber
                min={1}
                max={SHARE_LINK_MAX_USES}
                precision={0}
                placeholder={t('shareDialog.maxUses.placeholder')}
                style={{ width: 240 }}
                data-testid="share-max-uses"
              />
            </Form.Item>
          ) : null}
        </Form>
      )}
    </Modal>
  );
}

/** A required text field: blank (spaces only) is missing too. */
const requiredText = (message: string) => (v: unknown, cb: (error?: string) => void) =>
  cb(typeof v === 'string' && v.trim() ? undefined : message);
