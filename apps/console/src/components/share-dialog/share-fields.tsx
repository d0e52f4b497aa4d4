/**
 * The form pieces of the sharing screens: the right and expiry fields (the share dialog, the "change share" modal)
 * and the expiry as text. The right tag and the device pages' mark live in shared-mark.tsx, which stays light
 * (no date picker) because the device list and detail load it with their first paint.
 */
import { DatePicker, Form, Radio, Space, Tag } from '@arco-design/web-react';
import { formatTime } from '../../lib/format-time';
import { useLocale } from '../../lib/i18n';
import locale from './locale';

export { ShareRightTag } from './shared-mark';

/** The right radio with what each right allows, and what neither does. */
export function RightField({ field = 'right' }: { field?: string }) {
  const t = useLocale(locale);
  return (
    <Form.Item label={t('shareDialog.right')} field={field} extra={t('shareDialog.right.never')}>
      <Radio.Group direction="vertical">
        {(['view', 'control'] as const).map((r) => (
          <Radio key={r} value={r} data-testid={`share-right-radio-${r}`}>
            <Space size={8}>
              <span>{t(`shareDialog.right.${r}`)}</span>
              <span style={{ color: 'var(--color-text-3)' }}>{t(`shareDialog.right.${r}.hint`)}</span>
            </Space>
          </Radio>
        ))}
      </Radio.Group>
    </Form.Item>
  );
}

const EXPIRY_FORMAT = 'YYYY-MM-DD HH:mm';

/** An optional expiry (date and time, local); cleared, the share never expires. */
export function ExpiryField({ field = 'expires_at' }: { field?: string }) {
  const t = useLocale(locale);
  return (
    <Form.Item
      label={t('shareDialog.expires')}
      field={field}
      rules={[
        {
          validator: (v: unknown, cb: (error?: string) => void) => {
            const iso = expiryToIso(v);
            cb(iso !== null && Date.parse(iso) <= Date.now() ? t('shareDialog.expires.past') : undefined);
          },
        },
      ]}
    >
      <DatePicker
        showTime={{ format: 'HH:mm' }}
        format={EXPIRY_FORMAT}
        allowClear
        placeholder={t('shareDialog.expires.placeholder')}
        style={{ width: 240 }}
        disabledDate={(d) => d.isBefore(new Date(), 'day')}
        data-testid="share-expiry"
      />
    </Form.Item>
  );
}

/**
 * The picker's value as the API's ISO instant: the picker hands back its formatted local text, or the Date a form
 * was filled with; empty is null (never expires).
 */
export function expiryToIso(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'number') return new Date(value).toISOString();
  if (typeof value === 'object' && 'toDate' in value && typeof value.toDate === 'function')
    return (value.toDate as () => Date)().toISOString();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(String(value).trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m;
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).toISOString();
}

/** An expiry as the lists show it: the local time, "never", and an "expired" tag once it has passed. */
export function ExpiryText({ iso, expired }: { iso: string | null; expired?: boolean }) {
  const t = useLocale(locale);
  if (!iso) return <span style={{ color: 'var(--color-text-3)' }}>{t('shareDialog.never')}</span>;
  const past = expired ?? Date.parse(iso) <= Date.now();
  return (
    <Space size={6} style={{ whiteSpace: 'nowrap' }}>
      <span>{formatTime(iso)}</span>
      {past ? (
        <Tag size="small" color="gray" data-testid="share-expired">
          {t('shareDialog.expired')}
        </Tag>
      ) : null}
    </Space>
  );
}

/**
 * The mark of a device someone shared with the caller (device list and detail): "shared · view" and the owner,
 * the expiry in the tooltip. Nothing for the caller's own devices.
 */
