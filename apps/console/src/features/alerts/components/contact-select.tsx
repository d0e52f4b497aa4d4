import type { AlertContactItem } from '@cellhub/contract/alerts';
import { Select, Space, Tag } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import { useContactOptions } from '../api';
import locale from '../locale';

/** Whether a contact can receive anything yet: a verified phone or a verified email. */
export const reachable = (c: Pick<AlertContactItem, 'phone_verified' | 'email_verified'>) =>
  c.phone_verified || c.email_verified;

/** Several of the caller's contacts, each with what it can receive. */
export function ContactSelect({
  value,
  onChange,
  error,
}: {
  value?: number[];
  onChange?: (ids: number[]) => void;
  error?: boolean;
}) {
  const t = useLocale(locale);
  const { data, isFetching } = useContactOptions();
  return (
    <Select
      mode="multiple"
      allowClear
      loading={isFetching}
      placeholder={t('alert.field.contacts.placeholder')}
      value={value ?? []}
      status={error ? 'error' : undefined}
      onChange={(v: number[]) => onChange?.(v)}
      filterOption={(input, option) =>
        String((option.props as { extra?: string }).extra ?? '')
          .toLowerCase()
          .includes(input.toLowerCase())
      }
      data-testid="alert-contact-select"
    >
      {(data?.data ?? []).map((c) => (
        <Select.Option key={c.id} value={c.id} extra={`${c.name} ${c.phone} ${c.email}`}>
          <Space size={6}>
            <span>{c.name}</span>
            {c.phone ? (
              <Tag size="small" color={c.phone_verified ? 'green' : 'gray'}>
                {t('alert.method.sms')}
              </Tag>
            ) : null}
            {c.email ? (
              <Tag size="small" color={c.email_verified ? 'green' : 'gray'}>
                {t('alert.method.email')}
              </Tag>
            ) : null}
          </Space>
        </Select.Option>
      ))}
    </Select>
  );
}
