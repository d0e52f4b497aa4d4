import { ACCESS_SCOPES } from '@cellhub/contract/access';
import { MAX_IP_ALLOW } from '@cellhub/contract/access-keys';
import {
  Checkbox,
  DatePicker,
  Form,
  Input,
  InputTag,
  Radio,
  Switch,
  Tag,
  type FormInstance,
} from '@arco-design/web-react';
import { showFieldErrors } from '../../../components/form-states';
import { useLocale, type Translate } from '../../../lib/i18n';
import { badAllowEntries, isAllowEntry } from '../ip-allow';
import { EXPIRY_FORMAT, fromPickerTime, type KeyFormValues } from '../key-form';
import locale from '../locale';
import styles from './access-keys.module.css';

const startOfToday = () => {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.getTime();
};

/**
 * The fields of a key, for the create page and the edit modal: name, scopes (each with what it allows), the IP
 * allow-list (addresses and CIDR blocks, a bad one shown red and named under the field) and the expiry;
 * `withEnabled` adds the switch the edit form has.
 */
export function KeyFields({
  form,
  withEnabled,
}: {
  form: FormInstance<KeyFormValues>;
  withEnabled?: boolean;
}) {
  const t = useLocale(locale);
  const expiry = Form.useWatch('expiry', form) as KeyFormValues['expiry'] | undefined;
  return (
    <>
      <Form.Item
        label={t('accessKey.form.name')}
        field="name"
        rules={[
          {
            required: true,
            validator: (v: string | undefined, cb) =>
              cb(v?.trim() ? undefined : t('accessKey.form.name.required')),
          },
        ]}
      >
        <Input
          maxLength={64}
          showWordLimit
          placeholder={t('accessKey.form.name.placeholder')}
          data-testid="access-key-name"
        />
      </Form.Item>
      <Form.Item
        label={t('accessKey.form.scopes')}
        field="scopes"
        extra={t('accessKey.form.scopes.help')}
        rules={[
          { required: true, type: 'array', minLength: 1, message: t('accessKey.form.scopes.required') },
        ]}
      >
        <Checkbox.Group style={{ width: '100%' }}>
          <div className={styles.scopeGrid}>
            {ACCESS_SCOPES.map((s) => (
              <div key={s} className={styles.scopeItem}>
                <Checkbox value={s}>{t(`accessKey.scope.${s}`)}</Checkbox>
                <span className={styles.scopeHelp}>{t(`accessKey.scope.${s}.help`)}</span>
              </div>
            ))}
          </div>
        </Checkbox.Group>
      </Form.Item>
      <Form.Item
        label={t('accessKey.form.ipAllow')}
        field="ip_allow"
        extra={t('accessKey.form.ipAllow.help')}
        rules={[
          {
            validator: (v: string[] | undefined, cb) => {
              const list = v ?? [];
              const bad = badAllowEntries(list);
              if (bad.length > 0) return cb(t('accessKey.form.ipAllow.bad', { list: bad.join(', ') }));
              if (list.length > MAX_IP_ALLOW)
                return cb(t('accessKey.form.ipAllow.tooMany', { max: MAX_IP_ALLOW }));
              cb();
            },
          },
        ]}
      >
        <InputTag
          allowClear
          saveOnBlur
          tokenSeparators={[',', ' ', '\n', ';']}
          placeholder={t('accessKey.form.ipAllow.placeholder')}
          data-testid="access-key-ip-allow"
          renderTag={({ value, label, closable, onClose }) => (
            <Tag
              className={styles.badTag}
              closable={closable}
              onClose={onClose}
              color={isAllowEntry(String(value)) ? undefined : 'red'}
            >
              {label}
            </Tag>
          )}
        />
      </Form.Item>
      <Form.Item label={t('accessKey.form.expiry')} required>
        <div className={styles.expiryRow}>
          <Form.Item field="expiry" noStyle>
            <Radio.Group type="button">
              <Radio value="never">{t('accessKey.form.expiry.never')}</Radio>
              <Radio value="until">{t('accessKey.form.expiry.until')}</Radio>
            </Radio.Group>
          </Form.Item>
          {expiry === 'until' && (
            // Its own item (not noStyle), so its message shows under the picker.
            <Form.Item
              field="expires_at"
              style={{ marginBottom: 0, width: 'auto' }}
              rules={[
                {
                  validator: (v: string | undefined, cb) => {
                    const d = fromPickerTime(v);
                    if (!d) return cb(t('accessKey.form.expiry.required'));
                    if (d.getTime() <= Date.now()) return cb(t('accessKey.form.expiry.past'));
                    cb();
                  },
                },
              ]}
            >
              <DatePicker
                showTime={{ format: 'HH:mm' }}
                format={EXPIRY_FORMAT}
                style={{ width: 220 }}
                disabledDate={(current) => current.valueOf() < startOfToday()}
              />
            </Form.Item>
          )}
        </div>
      </Form.Item>
      {withEnabled && (
        <Form.Item label={t('accessKey.form.enabled')} field="enabled" triggerPropName="checked">
          <Switch />
        </Form.Item>
      )}
    </>
  );
}

/**
 * Puts the server's refusal of a key body (10113) under the field it names: `ip_allow.3` is the allow-list,
 * and its rule words ("ip_rule", "must be in the future") become this form's own messages. Answers whether it did.
 */
export function showKeyFieldErrors(form: FormInstance<KeyFormValues>, e: unknown, t: Translate): boolean {
  return showFieldErrors(form, e, {
    field: (name) => name.split('.')[0]!,
    message: (text) =>
      text === 'ip_rule'
        ? t('accessKey.form.ipAllow.rule')
        : /future/i.test(text)
          ? t('accessKey.form.expiry.past')
          : text,
  });
}
