import type { HwValueType } from '@cellhub/contract/hardware';
import { Tag } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';

const COLORS: Record<HwValueType, string> = {
  module_model: 'arcoblue',
  mcu: 'purple',
  board_revision: 'green',
  antenna: 'orangered',
  enclosure: 'gold',
  other: 'gray',
};

/** A value's type as a coloured tag, the same colour for a type on every hardware page. */
export function HwTypeTag({ type, t }: { type: HwValueType; t: Translate }) {
  return (
    <Tag size="small" color={COLORS[type]}>
      {t(`hw.type.${type}`)}
    </Tag>
  );
}
