import { Button, Checkbox, Divider, Popover, Space } from '@arco-design/web-react';
import { IconSettings } from '@arco-design/web-react/icon';
import type { Translate } from '../../../lib/i18n';
import { DEFAULT_COLUMNS, type DeviceColumn } from '../device-columns';

export function ColumnPicker({
  all,
  value,
  onChange,
  t,
}: {
  all: readonly DeviceColumn[];
  value: readonly DeviceColumn[];
  onChange: (cols: DeviceColumn[]) => void;
  t: Translate;
}) {
  const content = (
    <div style={{ width: 220, maxHeight: 420, overflowY: 'auto' }}>
      <Checkbox.Group
        direction="vertical"
        value={[...value]}
        onChange={(v: DeviceColumn[]) => onChange(v.length ? v : ['sn'])}
        options={all.map((c) => ({ label: t(`device.col.${c}`), value: c, disabled: c === 'sn' }))}
      />
      <Divider style={{ margin: '8px 0' }} />
      <Space>
        <Button size="mini" type="text" onClick={() => onChange([...DEFAULT_COLUMNS])}>
          {t('device.columns.reset')}
        </Button>
      </Space>
    </div>
  );
  return (
    <Popover trigger="click" position="br" content={content} title={t('device.columns')}>
      <Button icon={<IconSettings />} aria-label={t('device.columns')}>
        {t('device.columns')}
      </Button>
    </Popover>
  );
}
