import {
  SIM_CARD_FLAGS,
  SIM_CARD_STATUSES,
  SIM_OPERATORS,
  type SimCardFlag,
  type SimCardStatus,
  type SimOperator,
} from '@cellhub/contract/sim';
import { Grid, type FormInstance } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { useLocale } from '../../../lib/i18n';
import type { CardFilter } from '../api';
import locale from '../locale';

export interface CardFilterValues {
  keyword?: string;
  status?: SimCardStatus;
  operator?: SimOperator;
  expiring_days?: number;
  flag?: SimCardFlag;
  provider_id?: number;
}

export const EXPIRING_CHOICES = [7, 15, 30, 60, 90] as const;

export function filterFromValues(v: CardFilterValues): CardFilter {
  return {
    keyword: v.keyword?.trim() || undefined,
    status: v.status || undefined,
    operator: v.operator || undefined,
    expiring_days: v.expiring_days || undefined,
    flag: v.flag || undefined,
    provider_id: v.provider_id || undefined,
  };
}

/** The filter row of both card lists: keyword, status, operator, expiring within, flag (+ the admin's extra). */
export function CardFilters({
  form,
  onSearch,
  extra,
}: {
  form: FormInstance<CardFilterValues>;
  onSearch: () => void;
  /** One more filter in the second row (the stock list's provider). */
  extra?: ReactNode;
}) {
  const t = useLocale(locale);
  const all = t('sim.filter.all');
  return (
    <ListSearchBar
      form={form}
      labelAlign="left"
      labelCol={{ span: 7 }}
      wrapperCol={{ span: 17 }}
      onSearch={onSearch}
    >
      <Grid.Row gutter={16}>
        <KeywordFilter
          label={t('sim.filter.keyword')}
          placeholder={t('sim.filter.keyword.placeholder')}
          onSearch={onSearch}
        />
        <ChoiceFilter
          label={t('sim.filter.status')}
          field="status"
          placeholder={all}
          options={SIM_CARD_STATUSES.map((s) => ({ label: t(`sim.status.${s}`), value: s }))}
        />
        <ChoiceFilter
          label={t('sim.filter.operator')}
          field="operator"
          placeholder={all}
          options={SIM_OPERATORS.map((o) => ({ label: t(`sim.operator.${o}`), value: o }))}
        />
        <ChoiceFilter
          label={t('sim.filter.expiring')}
          field="expiring_days"
          placeholder={all}
          options={EXPIRING_CHOICES.map((d) => ({
            label: t('sim.filter.expiring.days', { days: d }),
            value: d,
          }))}
        />
        <ChoiceFilter
          label={t('sim.filter.flag')}
          field="flag"
          placeholder={all}
          options={SIM_CARD_FLAGS.map((f) => ({ label: t(`sim.flag.${f}`), value: f }))}
        />
        {extra && <Grid.Col span={8}>{extra}</Grid.Col>}
      </Grid.Row>
    </ListSearchBar>
  );
}
