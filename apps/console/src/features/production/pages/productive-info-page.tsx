import { TESTED_STATES, type ProductionDeviceItem, type TestedState } from '@cellhub/contract/production';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { useLocale } from '../../../lib/i18n';
import { useProduced, type ProducedParams } from '../api';
import { producedColumns } from '../components/produced-columns';
import locale from '../locale';

type Filters = { keyword?: string; tested?: TestedState; mismatch?: '0' | '1'; shipped?: '0' | '1' };

/** /productive/info (admin): every produced device with its task, factory test, hardware check and stock state. */
export default function ProductiveInfoPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<ProducedParams, Filters>();
  const query = useProduced(params);
  return (
    <ListPage<ProductionDeviceItem, ProducedParams>
      title={t('prod.info.title')}
      help={t('prod.info.help')}
      search={
        <ListSearchBar form={form} grid="half" onSearch={search}>
          <KeywordFilter
            label={t('prod.device.sn')}
            placeholder={t('prod.device.keyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('prod.device.tested')}
            field="tested"
            placeholder={t('prod.device.tested.all')}
            options={TESTED_STATES.map((s) => ({ value: s, label: t(`prod.device.tested.${s}`) }))}
          />
          <ChoiceFilter
            label={t('prod.device.mismatch')}
            field="mismatch"
            placeholder={t('prod.device.tested.all')}
            options={[
              { value: '1', label: t('prod.device.mismatch.yes') },
              { value: '0', label: t('prod.device.mismatch.no') },
            ]}
          />
          <ChoiceFilter
            label={t('prod.device.shipped')}
            field="shipped"
            placeholder={t('prod.device.tested.all')}
            options={[
              { value: '0', label: t('prod.device.shipped.no') },
              { value: '1', label: t('prod.device.shipped.yes') },
            ]}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      rowKey="sn"
      columns={producedColumns(t, true)}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('prod.total', { total })}
      empty={<ListEmpty text={t('prod.info.empty')} />}
    />
  );
}
