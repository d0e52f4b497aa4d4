import { Button, Card, Descriptions, Space, Tag } from '@arco-design/web-react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useFeature } from '../api';
import locale from '../locale';

/** /product/feature/detail/:id — a feature, its panels and its products. */
export default function FeatureDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useFeature(isRecordId(id) ? id : undefined);
  const state = recordState(load, {
    badId: !isRecordId(id),
    back: '/product/feature',
    backLabel: t('feature.back'),
    notFoundTitle: t('feature.notFound'),
  });
  if (state) return state;
  const f = load.data!;
  return (
    <PageContainer>
      <Card
        bordered={false}
        title={`${f.name} (${f.key})`}
        extra={
          <Space>
            <Button onClick={() => void navigate(`/product/feature/edit/${f.id}`)}>{t('common.edit')}</Button>
            <Button onClick={() => void navigate('/product/feature')}>{t('common.back')}</Button>
          </Space>
        }
      >
        <Descriptions
          column={1}
          labelStyle={{ width: 160 }}
          data={[
            { label: t('feature.form.nameUs'), value: f.name_us || '-' },
            { label: t('feature.col.description'), value: f.description || '-' },
            {
              label: t('feature.col.panels'),
              value:
                f.panels.length === 0
                  ? t('feature.none')
                  : f.panels.map((p) => (
                      <Tag key={p} color="arcoblue">
                        {t(`feature.panel.${p}`)}
                      </Tag>
                    )),
            },
            {
              label: t('feature.col.products'),
              value:
                f.products.length === 0 ? (
                  '-'
                ) : (
                  <Space wrap size={4}>
                    {f.products.map((p) => (
                      <Tag key={p.product_key}>
                        {p.name} ({p.product_key})
                      </Tag>
                    ))}
                  </Space>
                ),
            },
            { label: t('feature.col.updated'), value: formatTime(f.updatedat) },
          ]}
        />
      </Card>
    </PageContainer>
  );
}
