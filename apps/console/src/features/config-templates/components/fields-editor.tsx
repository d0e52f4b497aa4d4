import { Badge, Checkbox, Collapse, Input, InputNumber, Select, Switch } from '@arco-design/web-react';
import { CONFIG_GROUPS } from '@cellhub/contract/config-templates';
import { Fragment, type ReactNode } from 'react';
import { useLocale } from '../../../lib/i18n';
import {
  CONFIG_FIELDS,
  defaultValue,
  type FieldDef,
  type FieldState,
  type FieldValue,
} from '../config-fields';
import locale from '../locale';
import styles from '../pages/config-template.module.css';

/** `subscribe.3` -> "Subscribe topic 4"; `socket.1.heartbeat` -> "Socket 2 heartbeat package". */
function sectionTitle(
  section: string,
  t: (k: string, v?: Record<string, string | number>) => string,
): string {
  const [head, slot, sub] = section.split('.');
  if (slot === undefined) return t(`configTemplate.section.${head}`);
  const n = Number(slot) + 1;
  return t(`configTemplate.section.${sub ?? head}`, { n });
}

function ValueInput({
  f,
  value,
  disabled,
  onChange,
}: {
  f: FieldDef;
  value: FieldValue;
  disabled: boolean;
  onChange: (v: FieldValue) => void;
}): ReactNode {
  switch (f.kind) {
    case 'bool':
      return <Switch size="small" checked={value === true} disabled={disabled} onChange={onChange} />;
    case 'number':
      return (
        <InputNumber
          size="small"
          value={value as number}
          min={f.min}
          max={f.max}
          disabled={disabled}
          onChange={(v) => onChange(v ?? f.min ?? 0)}
        />
      );
    case 'select':
      return (
        <Select
          size="small"
          value={value as string | number}
          disabled={disabled}
          options={(f.options ?? []).map((o) => ({ label: String(o), value: o as string | number }))}
          onChange={onChange}
        />
      );
    default:
      return (
        <Input
          size="small"
          type={f.kind === 'password' ? 'password' : 'text'}
          value={value as string}
          disabled={disabled}
          maxLength={256}
          onChange={onChange}
          data-testid={`field-${f.key}`}
        />
      );
  }
}

/** One row per configuration field: tick it to make the template set it. */
export default function FieldsEditor({
  value,
  onChange,
  invalid,
}: {
  value: FieldState;
  onChange: (next: FieldState) => void;
  /** Keys the contract refused. */
  invalid: Set<string>;
}) {
  const t = useLocale(locale);
  const set = (key: string, v: FieldValue | undefined) => {
    const next = { ...value };
    if (v === undefined) delete next[key];
    else next[key] = v;
    onChange(next);
  };
  return (
    <Collapse defaultActiveKey={['global']} bordered={false}>
      {CONFIG_GROUPS.map((group) => {
        const fields = CONFIG_FIELDS.filter((f) => f.group === group);
        const chosen = fields.filter((f) => f.key in value).length;
        const sections = [...new Set(fields.map((f) => f.section))];
        return (
          <Collapse.Item
            key={group}
            name={group}
            header={
              <span>
                {t(`configTemplate.group.${group}`)}{' '}
                {chosen > 0 && <Badge count={chosen} style={{ marginLeft: 8 }} />}
              </span>
            }
          >
            <div className={styles.sections}>
              {sections.map((section) => (
                <div key={section}>
                  <div className={styles.section}>{sectionTitle(section, t)}</div>
                  {fields
                    .filter((f) => f.section === section)
                    .map((f) => {
                      const on = f.key in value;
                      return (
                        <Fragment key={f.key}>
                          <div className={styles.fieldRow}>
                            <Checkbox
                              checked={on}
                              aria-label={`${sectionTitle(section, t)} ${t(`configTemplate.field.${f.name}`)}`}
                              data-testid={`pick-${f.key}`}
                              onChange={(checked: boolean) =>
                                set(f.key, checked ? defaultValue(f) : undefined)
                              }
                            />
                            <span style={invalid.has(f.key) ? { color: 'rgb(var(--danger-6))' } : undefined}>
                              {t(`configTemplate.field.${f.name}`)}
                            </span>
                            <ValueInput
                              f={f}
                              value={on ? value[f.key]! : defaultValue(f)}
                              disabled={!on}
                              onChange={(v) => set(f.key, v)}
                            />
                          </div>
                        </Fragment>
                      );
                    })}
                </div>
              ))}
            </div>
          </Collapse.Item>
        );
      })}
    </Collapse>
  );
}
