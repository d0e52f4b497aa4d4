import type { HwGroupValue } from '@cellhub/contract/hardware';
import { Space, Tooltip } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';
import { HwTypeTag } from './hw-type-tag';

/** A group's values as "type value" pairs on one wrapping line. */
export function HwGroupValues({ values, t }: { values: HwGroupValue[]; t: Translate }) {
  if (values.length === 0) return <span style={{ color: 'var(--color-text-3)' }}>{t('hw.group.none')}</span>;
  return (
    <Space size={[12, 4]} wrap>
      {values.map((v) => (
        <Tooltip key={v.id} content={t(`hw.type.${v.type}`)}>
          <span style={{ whiteSpace: 'nowrap' }}>
            <HwTypeTag type={v.type} t={t} /> {v.value}
          </span>
        </Tooltip>
      ))}
    </Space>
  );
}
