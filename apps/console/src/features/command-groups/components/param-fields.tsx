import { COMMAND_PARAM_TYPES, type CommandParamType } from '@cellhub/contract/command-groups';
import { Button, Form, Input, InputNumber, InputTag, Select } from '@arco-design/web-react';
import { IconDelete, IconPlus } from '@arco-design/web-react/icon';
import type { CommandType } from '@cellhub/contract/protocol';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../pages/command-groups.module.css';

/** A parameter as the form holds it (every type's fields; the page keeps the ones of the chosen type). */
export interface ParamValues {
  name: string;
  label?: string;
  type: CommandParamType;
  min?: number;
  max?: number;
  bytes?: number;
  max_length?: number;
  pattern?: string;
  options?: string[];
}

/** The parameter definitions of a command: one row per parameter, its fields following its type. */
export function ParamFields({
  typeOf,
  commandType,
}: {
  /** The type chosen for the i-th parameter (read from the page's form). */
  typeOf: (i: number) => CommandParamType | undefined;
  commandType: CommandType;
}) {
  const t = useLocale(locale);
  return (
    <Form.List field="params">
      {(fields, { add, remove }) => (
        <div data-testid="cmd-params">
          {fields.map((f, i) => (
            <div key={f.key} className={styles.paramRow} data-testid={`cmd-param-${i}`}>
              <Form.Item
                field={`${f.field}.name`}
                label={t('cmd.form.param.name')}
                layout="vertical"
                style={{ width: 150 }}
                rules={[
                  { required: true, message: t('cmd.form.param.nameRule') },
                  { match: /^[A-Za-z_][A-Za-z0-9_]{0,31}$/, message: t('cmd.form.param.nameRule') },
                ]}
              >
                <Input className={styles.mono} maxLength={32} data-testid={`cmd-param-${i}-name`} />
              </Form.Item>
              <Form.Item
                field={`${f.field}.label`}
                label={t('cmd.form.param.label')}
                layout="vertical"
                style={{ width: 140 }}
              >
                <Input maxLength={64} />
              </Form.Item>
              <Form.Item
                field={`${f.field}.type`}
                label={t('cmd.form.param.type')}
                layout="vertical"
                style={{ width: 120 }}
              >
                <Select
                  data-testid={`cmd-param-${i}-type`}
                  options={COMMAND_PARAM_TYPES.map((v) => ({ label: t(`param.type.${v}`), value: v }))}
                />
              </Form.Item>
              <Form.Item shouldUpdate noStyle>
                {() => {
                  const type = typeOf(i);
                  const num = (
                    name: string,
                    label: string,
                    props: { min?: number; precision?: number } = {},
                  ) => (
                    <Form.Item
                      key={name}
                      field={`${f.field}.${name}`}
                      label={label}
                      layout="vertical"
                      style={{ width: 120 }}
                    >
                      <InputNumber {...props} data-testid={`cmd-param-${i}-${name}`} />
                    </Form.Item>
                  );
                  if (type === 'int')
                    return [
                      num('min', t('cmd.form.param.min'), { precision: 0 }),
                      num('max', t('cmd.form.param.max'), { precision: 0 }),
                      commandType === 'hex' &&
                        num('bytes', t('cmd.form.param.bytes'), { min: 1, precision: 0 }),
                    ];
                  if (type === 'number')
                    return [num('min', t('cmd.form.param.min')), num('max', t('cmd.form.param.max'))];
                  if (type === 'hex')
                    return num('bytes', t('cmd.form.param.bytes'), { min: 1, precision: 0 });
                  if (type === 'string')
                    return [
                      num('max_length', t('cmd.form.param.maxLength'), { min: 1, precision: 0 }),
                      <Form.Item
                        key="pattern"
                        field={`${f.field}.pattern`}
                        label={t('cmd.form.param.pattern')}
                        layout="vertical"
                        style={{ width: 200 }}
                      >
                        <Input
                          className={styles.mono}
                          maxLength={200}
                          data-testid={`cmd-param-${i}-pattern`}
                        />
                      </Form.Item>,
                    ];
                  if (type === 'enum')
                    return (
                      <Form.Item
                        field={`${f.field}.options`}
                        label={t('cmd.form.param.options')}
                        layout="vertical"
                        style={{ width: 300 }}
                      >
                        <InputTag
                          allowClear
                          saveOnBlur
                          placeholder={t('cmd.form.param.options.placeholder')}
                          data-testid={`cmd-param-${i}-options`}
                        />
                      </Form.Item>
                    );
                  return null;
                }}
              </Form.Item>
              <Button
                icon={<IconDelete />}
                status="danger"
                type="text"
                style={{ marginTop: 30 }}
                aria-label={t('common.delete')}
                onClick={() => remove(i)}
              />
            </div>
          ))}
          <Button
            type="dashed"
            icon={<IconPlus />}
            long
            data-testid="cmd-add-param"
            onClick={() =>
              add({ name: '', type: commandType === 'hex' ? 'hex' : 'string', bytes: 1, max_length: 64 })
            }
          >
            {t('cmd.form.addParam')}
          </Button>
        </div>
      )}
    </Form.List>
  );
}
