import type { AccessKeyItem } from '@cellhub/contract/access-keys';
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Form,
  Message,
  Modal,
  Popconfirm,
  Space,
  Tag,
  Typography,
} from '@arco-design/web-react';
import { IconDelete, IconEdit, IconRefresh } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { recordState } from '../../../components/result-page/result-page';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useUserInfo } from '../../../lib/user';
import { useAccessKey, useDeleteAccessKey, useUpdateAccessKey } from '../api';
import { EnabledSwitch } from '../components/enabled-switch';
import { KeyFields, showKeyFieldErrors } from '../components/key-fields';
import { useRotateSecret } from '../components/rotate-secret';
import { isExpired, ScopeTags, VerifiedTag } from '../components/scope-tags';
import { UsageChart } from '../components/usage-chart';
import { UsesTable } from '../components/uses-table';
import { VerifyPanel } from '../components/verify-panel';
import { keyBody, keyFormOf, type KeyFormValues } from '../key-form';
import locale from '../locale';
import styles from '../components/access-keys.module.css';

/** /accesskey/detail/:accesskey: everything about a key but its secret, its edit, verification and use. */
export default function AccessKeyDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const ak = useParams().accesskey ?? '';
  // A malformed key is asked for all the same: the server's refusal says "not found" like a missing one.
  const load = useAccessKey(ak || undefined);
  const key = load.data;
  const remove = useDeleteAccessKey();
  const { rotate, modal } = useRotateSecret();
  const [editing, setEditing] = useState(false);
  const { data: me } = useUserInfo();

  // An admin may see another user's key; only its owner rotates or verifies it (docs/open-api.md).
  const mine = !key?.owner || key.owner.uid === me?.uid;
  const state = recordState(load, {
    badId: !ak,
    back: '/accesskey/list',
    notFoundTitle: t('accessKey.detail.notFound'),
    subject: ak,
  });
  if (state || !key) return state;

  const onDelete = () =>
    remove.mutateAsync(ak).then(
      () => {
        Message.success(t('accessKey.delete.done'));
        void navigate('/accesskey/list');
      },
      () => undefined,
    );

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={key.name}
        extra={
          <Space>
            <Button icon={<IconEdit />} onClick={() => setEditing(true)}>
              {t('common.edit')}
            </Button>
            {mine && (
              <Popconfirm
                title={t('accessKey.rotate.confirm')}
                onOk={() => rotate(ak).catch(() => undefined)}
              >
                <Button icon={<IconRefresh />}>{t('accessKey.rotate')}</Button>
              </Popconfirm>
            )}
            <Popconfirm key="delete" title={t('accessKey.delete.confirm')} onOk={onDelete}>
              <Button status="danger" icon={<IconDelete />}>
                {t('common.delete')}
              </Button>
            </Popconfirm>
          </Space>
        }
      >
        <div data-testid="access-key-descriptions">
          <Descriptions column={2} labelStyle={{ width: 120 }} data={describe(key, t)} />
        </div>
        {me && !mine && key.owner && (
          <Alert
            type="info"
            style={{ marginTop: 16 }}
            content={t('accessKey.detail.othersKey', { name: key.owner.username })}
          />
        )}
      </Card>
      {!key.verified && mine && (
        <Card bordered={false} title={t('accessKey.verify.title')}>
          <p className={styles.muted} style={{ marginTop: 0 }}>
            {t('accessKey.verify.help')}
          </p>
          <VerifyPanel accessKey={ak} onVerified={() => void load.refetch()} />
        </Card>
      )}
      <Card bordered={false} title={t('accessKey.detail.usage')}>
        <UsageChart accessKey={ak} />
      </Card>
      <Card bordered={false} title={t('accessKey.detail.uses')}>
        <UsesTable accessKey={ak} />
      </Card>
      {modal}
      <EditModal item={key} visible={editing} onClose={() => setEditing(false)} />
    </PageContainer>
  );
}

function describe(key: AccessKeyItem, t: (k: string, v?: Record<string, string | number>) => string) {
  return [
    {
      label: t('accessKey.col.accessKey'),
      value: (
        <Typography.Text className={styles.mono} copyable={{ text: key.access_key }} style={{ margin: 0 }}>
          {key.access_key}
        </Typography.Text>
      ),
    },
    { label: t('accessKey.col.name'), value: key.name },
    ...(key.owner ? [{ label: t('accessKey.col.owner'), value: key.owner.username }] : []),
    { label: t('accessKey.col.scopes'), value: <ScopeTags scopes={key.scopes} /> },
    { label: t('accessKey.col.verified'), value: <VerifiedTag verified={key.verified} /> },
    { label: t('accessKey.col.enabled'), value: <EnabledSwitch item={key} /> },
    {
      label: t('accessKey.col.ipAllow'),
      value:
        key.ip_allow.length === 0 ? (
          <span className={styles.muted}>{t('accessKey.anyAddress')}</span>
        ) : (
          <Space size={4} wrap>
            {key.ip_allow.map((ip) => (
              <Tag key={ip} size="small" className={styles.mono}>
                {ip}
              </Tag>
            ))}
          </Space>
        ),
    },
    {
      label: t('accessKey.col.expires'),
      value:
        key.expires_at === null ? (
          t('accessKey.never')
        ) : (
          <Space size={4}>
            {formatTime(key.expires_at)}
            {isExpired(key.expires_at) && (
              <Tag size="small" color="red">
                {t('accessKey.expired')}
              </Tag>
            )}
          </Space>
        ),
    },
    {
      label: t('accessKey.col.lastUsed'),
      value:
        key.last_used_at === null ? (
          <span className={styles.muted}>{t('accessKey.neverUsed')}</span>
        ) : (
          <span data-testid="access-key-last-used">
            {formatTime(key.last_used_at)} <span className={styles.mono}>{key.last_used_ip}</span>
          </span>
        ),
    },
    { label: t('accessKey.col.created'), value: formatTime(key.created_at) },
    { label: t('accessKey.col.updated'), value: formatTime(key.updated_at) },
  ];
}

/** Name, scopes, allow-list, expiry and enabled, saved in one PUT. */
function EditModal({
  item,
  visible,
  onClose,
}: {
  item: AccessKeyItem;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<KeyFormValues>();
  const update = useUpdateAccessKey();
  const save = async () => {
    let values: KeyFormValues;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    try {
      await update.mutateAsync({ ak: item.access_key, body: keyBody(values), silent: true });
      Message.success(t('accessKey.form.saved'));
      onClose();
    } catch (e) {
      if (showKeyFieldErrors(form, e, t)) return;
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };
  return (
    <Modal
      title={t('accessKey.form.editTitle')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void save()}
      confirmLoading={update.isPending}
      unmountOnExit
      style={{ width: 720 }}
    >
      <Form<KeyFormValues> form={form} layout="vertical" initialValues={keyFormOf(item)}>
        <KeyFields form={form} withEnabled />
      </Form>
    </Modal>
  );
}
