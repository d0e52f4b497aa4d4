import {
  PASSWORD_RULE,
  PHONE_RULE,
  USERNAME_RULE,
  type UserListItem,
  type UserUpdateBody,
} from '@cellhub/contract/auth';
import type { Role } from '@cellhub/contract/routes';
import { Alert, Button, Form, Input, Message, Modal, Radio, Space, Typography } from '@arco-design/web-react';
import { IconCopy } from '@arco-design/web-react/icon';
import { useEffect, useState } from 'react';
import { copyText } from '../../../components/copy-text';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCreateUser, useUpdateUser } from '../api';
import { generatePassword } from '../generate-password';
import locale from '../locale';

interface Values {
  username: string;
  password_mode: 'generate' | 'set';
  password?: string;
  role: Role;
  nickname?: string;
  phone?: string;
  email?: string;
}

// Where the server's refusals belong in the form; anything else is a toast.
const FIELD_OF_CODE: Record<number, keyof Values> = { 31003: 'username', 20129: 'phone', 31007: 'role' };

/**
 * "New user" (`user` undefined) and "Edit" (role and contact fields) of System > Users. A generated initial
 * password is shown once, with a copy button, after the account exists: the server keeps only its hash.
 */
export default function UserFormModal({
  visible,
  user,
  onClose,
}: {
  visible: boolean;
  user?: UserListItem;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const create = useCreateUser();
  const update = useUpdateUser();
  const [issued, setIssued] = useState<{ username: string; password: string } | null>(null);
  const mode = Form.useWatch('password_mode', form) as Values['password_mode'] | undefined;
  const editing = user !== undefined;

  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    if (user)
      form.setFieldsValue({
        username: user.username,
        role: user.role,
        nickname: user.nickname,
        phone: user.phone,
        email: user.email,
      });
  }, [visible, user, form]);

  const refused = (e: unknown) => {
    if (!(e instanceof ApiError)) return;
    const field = FIELD_OF_CODE[e.code];
    if (field) form.setFields({ [field]: { error: { message: e.message } } });
    else if (e.httpStatus !== 403) Message.error(e.message);
  };

  const submit = async () => {
    let v: Values;
    try {
      v = await form.validate();
    } catch {
      return;
    }
    const contact = { nickname: v.nickname?.trim() ?? '', email: v.email?.trim() ?? '' };
    const phone = v.phone?.trim() ?? '';
    try {
      if (user) {
        const body: UserUpdateBody = { ...contact, phone, role: v.role };
        await update.mutateAsync({ uid: user.uid, body });
        Message.success(t('users.form.saved'));
        onClose();
        return;
      }
      const password = v.password_mode === 'generate' ? generatePassword() : (v.password ?? '');
      await create.mutateAsync({
        username: v.username.trim(),
        password,
        role: v.role,
        ...contact,
        ...(phone ? { phone } : {}),
      });
      Message.success(t('users.form.created'));
      onClose();
      if (v.password_mode === 'generate') setIssued({ username: v.username.trim(), password });
    } catch (e) {
      refused(e);
    }
  };

  return (
    <>
      <Modal
        title={editing ? t('users.form.editTitle', { username: user.username }) : t('users.create')}
        visible={visible}
        onOk={() => void submit()}
        okText={t('common.ok')}
        cancelText={t('common.cancel')}
        confirmLoading={create.isPending || update.isPending}
        onCancel={onClose}
        unmountOnExit
        style={{ width: 560 }}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          autoComplete="off"
          initialValues={{ password_mode: 'generate', role: 'user' }}
        >
          <Form.Item
            label={t('users.col.username')}
            field="username"
            disabled={editing}
            extra={editing ? undefined : t('users.form.username.rule')}
            rules={
              editing
                ? []
                : [
                    { required: true, message: t('users.form.username.required') },
                    { match: USERNAME_RULE, message: t('users.form.username.rule') },
                  ]
            }
          >
            <Input
              maxLength={32}
              placeholder={t('users.form.username.placeholder')}
              data-testid="user-username"
            />
          </Form.Item>
          {!editing && (
            <>
              <Form.Item label={t('users.form.password')} field="password_mode">
                <Radio.Group type="button">
                  <Radio value="generate">{t('users.form.password.generate')}</Radio>
                  <Radio value="set">{t('users.form.password.set')}</Radio>
                </Radio.Group>
              </Form.Item>
              {mode === 'set' && (
                <Form.Item
                  field="password"
                  extra={t('users.resetPassword.rule')}
                  rules={[
                    { required: true, message: t('users.resetPassword.required') },
                    { match: PASSWORD_RULE, message: t('users.form.password.ruleError') },
                  ]}
                >
                  <Input.Password
                    autoComplete="new-password"
                    maxLength={64}
                    placeholder={t('users.form.password.placeholder')}
                    data-testid="user-password"
                  />
                </Form.Item>
              )}
            </>
          )}
          <Form.Item label={t('users.col.role')} field="role">
            <Radio.Group type="button">
              <Radio value="user">{t('users.role.user')}</Radio>
              <Radio value="admin">{t('users.role.admin')}</Radio>
            </Radio.Group>
          </Form.Item>
          <Form.Item label={t('users.col.nickname')} field="nickname">
            <Input maxLength={32} />
          </Form.Item>
          <Form.Item
            label={t('users.col.phone')}
            field="phone"
            rules={[
              {
                validator: (v: string | undefined, cb) =>
                  cb(v && v.trim() && !PHONE_RULE.test(v.trim()) ? t('users.form.phone.rule') : undefined),
              },
            ]}
          >
            <Input maxLength={16} placeholder={t('users.form.phone.placeholder')} data-testid="user-phone" />
          </Form.Item>
          <Form.Item
            label={t('users.col.email')}
            field="email"
            rules={[{ type: 'email', message: t('users.form.email.rule') }]}
          >
            <Input maxLength={128} placeholder="name@example.com" />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        title={t('users.issued.title')}
        visible={issued !== null}
        onOk={() => setIssued(null)}
        onCancel={() => setIssued(null)}
        hideCancel
        okText={t('users.issued.done')}
        maskClosable={false}
        unmountOnExit
      >
        <Alert type="warning" content={t('users.issued.hint')} style={{ marginBottom: 16 }} />
        {issued && (
          <Space direction="vertical" size={8}>
            <Typography.Text>
              {t('users.col.username')}: <code>{issued.username}</code>
            </Typography.Text>
            <Space>
              <Typography.Text>
                {t('users.form.password')}: <code data-testid="issued-password">{issued.password}</code>
              </Typography.Text>
              <Button
                size="small"
                icon={<IconCopy />}
                onClick={() =>
                  void copyText(issued.password).then((ok) =>
                    ok ? Message.success(t('common.copied')) : Message.error(t('common.copyFailed')),
                  )
                }
              >
                {t('common.copy')}
              </Button>
            </Space>
          </Space>
        )}
      </Modal>
    </>
  );
}
