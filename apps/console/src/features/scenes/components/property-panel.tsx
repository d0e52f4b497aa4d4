import {
  Button,
  Checkbox,
  ColorPicker,
  Divider,
  Empty,
  Input,
  InputNumber,
  Message,
  Select,
  Space,
  Typography,
  Upload,
} from '@arco-design/web-react';
import { IconDelete, IconPlus, IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import type { SceneSlotInput } from '@cellhub/contract/scenes';
import { useProductProperties } from '../../devices/detail-api';
import { useDeviceTemplate, withTemplateProperties } from '../../data-templates/device-properties';
import { bindingOf, type Widget } from '../scene-editor-model';
import { DeviceSelect } from './device-select';
import styles from './scene-editor.module.css';

type T = (key: string, vars?: Record<string, string | number>) => string;

export interface PropertyPanelProps {
  widget: Widget | undefined;
  count: number;
  mode: 'scene' | 'model';
  slots: SceneSlotInput[];
  /** sn -> product key of devices the scene already names. */
  deviceProducts: Record<string, string>;
  onChange: (patch: Record<string, unknown>) => void;
  /** Stores an image of the scene and answers its file id (image widgets); absent in models. */
  onUpload?: (file: File) => Promise<string>;
  t: T;
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className={styles.row}>
      <span className={styles.rowLabel}>{label}</span>
      <div className={styles.rowField}>{children}</div>
    </div>
  );
}

const num = (v: number | undefined, fallback = 0) =>
  typeof v === 'number' && Number.isFinite(v) ? v : fallback;

/** The selected widget's fields: geometry, binding, display and control options. */
export function PropertyPanel({
  widget: w,
  count,
  mode,
  slots,
  deviceProducts,
  onChange,
  onUpload,
  t,
}: PropertyPanelProps) {
  if (!w && count === 0) return null;
  if (!w)
    return (
      <div className={styles.panelEmpty}>
        <Empty description={count > 1 ? t('scene.panel.multi', { count }) : t('scene.panel.none')} />
      </div>
    );
  const b = bindingOf(w);
  const s = w.style ?? {};
  const setStyle = (patch: Record<string, unknown>) => onChange({ style: { ...s, ...patch } });
  return (
    <div className={styles.panel} data-testid="scene-panel">
      <Typography.Title heading={6} style={{ margin: '0 0 8px' }}>
        {t(`scene.kind.${w.kind}`)}
      </Typography.Title>
      <Row label={t('scene.prop.name')}>
        <Input
          size="small"
          value={w.name ?? ''}
          maxLength={64}
          onChange={(v) => onChange({ name: v || undefined })}
        />
      </Row>
      <Row label="X / Y">
        <Space size={4}>
          <InputNumber
            size="small"
            value={w.x}
            onChange={(v) => onChange({ x: num(v) })}
            style={{ width: 78 }}
          />
          <InputNumber
            size="small"
            value={w.y}
            onChange={(v) => onChange({ y: num(v) })}
            style={{ width: 78 }}
          />
        </Space>
      </Row>
      <Row label={t('scene.prop.size')}>
        <Space size={4}>
          <InputNumber
            size="small"
            min={1}
            value={w.w}
            onChange={(v) => onChange({ w: num(v, 1) })}
            style={{ width: 78 }}
          />
          <InputNumber
            size="small"
            min={1}
            value={w.h}
            onChange={(v) => onChange({ h: num(v, 1) })}
            style={{ width: 78 }}
          />
        </Space>
      </Row>
      {b && (
        <>
          <Divider style={{ margin: '8px 0' }} orientation="left">
            {t('scene.prop.binding')}
          </Divider>
          {mode === 'model' ? (
            <ModelBinding binding={b} slots={slots} onChange={(binding) => onChange({ binding })} t={t} />
          ) : (
            <SceneBinding
              binding={b}
              productKey={b.sn ? deviceProducts[b.sn] : undefined}
              onChange={(binding, extra) => onChange({ binding, ...extra })}
              t={t}
            />
          )}
        </>
      )}
      <Divider style={{ margin: '8px 0' }} orientation="left">
        {t('scene.prop.display')}
      </Divider>
      {'unit' in w && (
        <Row label={t('scene.prop.unit')}>
          <Input size="small" value={w.unit ?? ''} maxLength={16} onChange={(v) => onChange({ unit: v })} />
        </Row>
      )}
      {'decimals' in w && (
        <Row label={t('scene.prop.decimals')}>
          <InputNumber
            size="small"
            min={0}
            max={6}
            value={w.decimals}
            onChange={(v) => onChange({ decimals: num(v, 0) })}
          />
        </Row>
      )}
      {'min' in w && (
        <Row label={t('scene.prop.range')}>
          <Space size={4}>
            <InputNumber
              size="small"
              value={w.min}
              onChange={(v) => onChange({ min: num(v) })}
              style={{ width: 78 }}
            />
            <InputNumber
              size="small"
              value={w.max}
              onChange={(v) => onChange({ max: num(v, 100) })}
              style={{ width: 78 }}
            />
          </Space>
        </Row>
      )}
      {w.kind === 'setpoint' && (
        <Row label={t('scene.prop.step')}>
          <InputNumber
            size="small"
            min={0.000001}
            value={w.step}
            onChange={(v) => onChange({ step: num(v, 1) })}
          />
        </Row>
      )}
      {w.kind === 'image' && onUpload && (
        <ImageFile file={w.file} onUpload={onUpload} onChange={onChange} t={t} />
      )}
      {w.kind === 'trend' && (
        <Row label={t('scene.prop.minutes')}>
          <InputNumber
            size="small"
            min={1}
            max={10080}
            value={w.minutes}
            onChange={(v) => onChange({ minutes: num(v, 10) })}
          />
        </Row>
      )}
      {(w.kind === 'text' || w.kind === 'link') && (
        <Row label={t(w.kind === 'text' ? 'scene.prop.text' : 'scene.prop.label')}>
          <Input
            size="small"
            maxLength={w.kind === 'text' ? 500 : 64}
            value={w.kind === 'text' ? w.text : w.label}
            onChange={(v) => onChange(w.kind === 'text' ? { text: v } : { label: v })}
          />
        </Row>
      )}
      {w.kind === 'link' && (
        <Row label={t('scene.prop.device')}>
          {mode === 'model' ? (
            <Select
              size="small"
              value={'slot' in w.target ? w.target.slot || undefined : undefined}
              options={slots.map((x) => ({ value: x.name, label: x.label || x.name }))}
              onChange={(slot: string) => onChange({ target: { slot } })}
            />
          ) : (
            <DeviceSelect
              value={'sn' in w.target ? w.target.sn : ''}
              onChange={(sn) => onChange({ target: { sn } })}
            />
          )}
        </Row>
      )}
      {w.kind === 'lamp' && (
        <>
          <Row label={t('scene.prop.lampWhen')}>
            <Space size={4}>
              <Select
                size="small"
                style={{ width: 86 }}
                value={w.condition?.op ?? 'truthy'}
                options={['truthy', 'eq', 'ne', 'gt', 'ge', 'lt', 'le'].map((v) => ({
                  value: v,
                  label: t(`scene.op.${v}`),
                }))}
                onChange={(op: string) => onChange({ condition: { ...w.condition, op } })}
              />
              {w.condition?.op && w.condition.op !== 'truthy' && (
                <InputNumber
                  size="small"
                  style={{ width: 70 }}
                  value={typeof w.condition.operand === 'number' ? w.condition.operand : undefined}
                  onChange={(v) => onChange({ condition: { ...w.condition, operand: num(v) } })}
                />
              )}
            </Space>
          </Row>
          <Row label={t('scene.prop.onOffColor')}>
            <Space size={4}>
              <ColorPicker
                size="mini"
                value={w.on_color}
                onChange={(c) => onChange({ on_color: String(c) })}
              />
              <ColorPicker
                size="mini"
                value={w.off_color}
                onChange={(c) => onChange({ off_color: String(c) })}
              />
            </Space>
          </Row>
        </>
      )}
      {(w.kind === 'value' || w.kind === 'gauge') && (
        <Thresholds value={w.thresholds ?? []} onChange={(thresholds) => onChange({ thresholds })} t={t} />
      )}
      <Row label={t('scene.prop.color')}>
        <ColorPicker size="mini" value={s.color} onChange={(c) => setStyle({ color: String(c) })} />
      </Row>
      <Row label={t('scene.prop.background')}>
        <ColorPicker size="mini" value={s.background} onChange={(c) => setStyle({ background: String(c) })} />
      </Row>
      <Row label={t('scene.prop.fontSize')}>
        <InputNumber
          size="small"
          min={6}
          max={200}
          value={s.font_size ?? 14}
          onChange={(v) => setStyle({ font_size: num(v, 14) })}
        />
      </Row>
      {(w.kind === 'switch' || w.kind === 'setpoint') && (
        <>
          <Divider style={{ margin: '8px 0' }} orientation="left">
            {t('scene.prop.control')}
          </Divider>
          <Row label={t('scene.prop.writeMode')}>
            <Select
              size="small"
              value={w.write.mode}
              options={['property', 'modbus', 'command'].map((m) => ({
                value: m,
                label: t(`scene.write.${m}`),
              }))}
              onChange={(mode: string) =>
                onChange({
                  write:
                    mode === 'modbus'
                      ? { mode, tag: b?.key || 'tag' }
                      : mode === 'command'
                        ? { mode, type: 'string', template: '{{value}}' }
                        : { mode },
                })
              }
            />
          </Row>
          {w.write.mode === 'command' && (
            <Row label={t('scene.prop.template')}>
              <Input
                size="small"
                value={w.write.template}
                onChange={(v) => onChange({ write: { ...w.write, template: v } })}
              />
            </Row>
          )}
          {w.kind === 'switch' && (
            <Row label={t('scene.prop.onOff')}>
              <Space size={4}>
                <WriteValue value={w.on_value} onChange={(v) => onChange({ on_value: v })} />
                <WriteValue value={w.off_value} onChange={(v) => onChange({ off_value: v })} />
              </Space>
            </Row>
          )}
          <Row label="">
            <Checkbox checked={w.confirm} onChange={(v: boolean) => onChange({ confirm: v })}>
              {t('scene.prop.confirm')}
            </Checkbox>
          </Row>
        </>
      )}
    </div>
  );
}

function ImageFile({
  file,
  onUpload,
  onChange,
  t,
}: {
  file: string;
  onUpload: (file: File) => Promise<string>;
  onChange: (patch: Record<string, unknown>) => void;
  t: T;
}) {
  const [uploading, setUploading] = useState(false);
  return (
    <Row label={t('scene.kind.image')}>
      <Upload
        accept="image/png,image/jpeg,image/gif,image/webp"
        showUploadList={false}
        autoUpload={false}
        onChange={(_, f) => {
          if (!f.originFile) return;
          setUploading(true);
          void onUpload(f.originFile)
            .then((id) => onChange({ file: id }))
            .catch((e: unknown) => Message.error(e instanceof Error ? e.message : t('scene.saveFailed')))
            .finally(() => setUploading(false));
        }}
      >
        <Button size="small" icon={<IconUpload />} loading={uploading} data-testid="scene-image-upload">
          {file ? t('scene.canvas.replace') : t('scene.canvas.upload')}
        </Button>
      </Upload>
    </Row>
  );
}

function WriteValue({
  value,
  onChange,
}: {
  value: number | boolean;
  onChange: (v: number | boolean) => void;
}) {
  return (
    <Select
      size="small"
      style={{ width: 78 }}
      value={String(value)}
      options={['true', 'false', '1', '0']}
      onChange={(v: string) => onChange(v === 'true' ? true : v === 'false' ? false : Number(v))}
    />
  );
}

function Thresholds({
  value,
  onChange,
  t,
}: {
  value: { from: number; color: string }[];
  onChange: (v: { from: number; color: string }[]) => void;
  t: T;
}) {
  return (
    <Row label={t('scene.prop.thresholds')}>
      <Space direction="vertical" size={4}>
        {value.map((th, i) => (
          <Space key={i} size={4}>
            <InputNumber
              size="small"
              style={{ width: 78 }}
              value={th.from}
              prefix="≥"
              onChange={(v) => onChange(value.map((x, j) => (j === i ? { ...x, from: num(v) } : x)))}
            />
            <ColorPicker
              size="mini"
              value={th.color}
              onChange={(c) => onChange(value.map((x, j) => (j === i ? { ...x, color: String(c) } : x)))}
            />
            <Button
              size="mini"
              type="text"
              status="danger"
              icon={<IconDelete />}
              onClick={() => onChange(value.filter((_, j) => j !== i))}
            />
          </Space>
        ))}
        {value.length < 10 && (
          <Button
            size="mini"
            type="text"
            icon={<IconPlus />}
            onClick={() => onChange([...value, { from: 0, color: '#f53f3f' }])}
          >
            {t('scene.prop.addThreshold')}
          </Button>
        )}
      </Space>
    </Row>
  );
}

function ModelBinding({
  binding,
  slots,
  onChange,
  t,
}: {
  binding: { slot?: string; key: string };
  slots: SceneSlotInput[];
  onChange: (b: { slot: string; key: string }) => void;
  t: T;
}) {
  return (
    <>
      <Row label={t('scene.prop.slot')}>
        <Select
          size="small"
          data-testid="binding-slot"
          placeholder={t('scene.prop.slot.placeholder')}
          value={binding.slot || undefined}
          options={slots.map((s) => ({ value: s.name, label: s.label ? `${s.label} (${s.name})` : s.name }))}
          onChange={(slot: string) => onChange({ slot, key: binding.key })}
        />
      </Row>
      <Row label={t('scene.prop.variable')}>
        <Input
          size="small"
          data-testid="binding-key"
          value={binding.key}
          maxLength={64}
          onChange={(key) => onChange({ slot: binding.slot ?? '', key })}
        />
      </Row>
    </>
  );
}

function SceneBinding({
  binding,
  productKey,
  onChange,
  t,
}: {
  binding: { sn?: string; key: string };
  productKey?: string;
  onChange: (b: { sn: string; key: string }, extra?: Record<string, unknown>) => void;
  t: T;
}) {
  const props = useProductProperties(productKey);
  const template = useDeviceTemplate(binding.sn || undefined);
  const all = withTemplateProperties(props.data, template.data) ?? [];
  const options = all.map((p) => ({
    value: p.key,
    label: `${p.name} (${p.key})${p.unit ? ` · ${p.unit}` : ''}`,
  }));
  if (binding.key && !options.some((o) => o.value === binding.key))
    options.unshift({ value: binding.key, label: binding.key });
  return (
    <>
      <Row label={t('scene.prop.device')}>
        <DeviceSelect
          testId="binding-device"
          value={binding.sn}
          placeholder={t('scene.prop.device.placeholder')}
          onChange={(sn) => onChange({ sn, key: binding.key })}
        />
      </Row>
      <Row label={t('scene.prop.variable')}>
        <Select
          size="small"
          showSearch
          allowCreate
          data-testid="binding-key"
          placeholder={t('scene.prop.variable.placeholder')}
          value={binding.key || undefined}
          options={options}
          onChange={(key: string) => {
            const def = all.find((p) => p.key === key);
            onChange({ sn: binding.sn ?? '', key: key ?? '' }, def?.unit ? { unit: def.unit } : undefined);
          }}
        />
      </Row>
    </>
  );
}
