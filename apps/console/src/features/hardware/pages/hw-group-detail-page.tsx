import { Button, Card, Descriptions, Popconfirm, Space } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteHwGroup, useHwGroup } from '../api';
import { HwGroupDialog } from '../components/hw-group-form';
import { HwGroupValues } from '../components/hw-group-values';
import locale from '../locale';

/** /hw/group/:id: a hardware group's values and how many production tasks build it. */
export default function HwGroupDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useHwGroup(isRecordId(id) ? id : undefined);
  const remove = useDeleteHwGroup();
  const [editing, setEditing] = useState(false);

  const state = recordState(load, {
    back: '/hw/group',
    backLabel: t('hw.group.back'),
    badId: !isRecordId(id),
  });
  if (state) return <PageContainer>{state}</PageContainer>;
  const g = load.data!;

  return (
    <PageContainer>
      <Card
        title={g.name}
        extra={
          <Space>
            <Button onClick={() => setEditing(true)}>{t('common.edit')}</Button>
            <Popconfirm
              title={t('hw.group.deleteConfirm')}
              onOk={async () => {
                await remove.mutateAsync(g.id);
                void navigate('/hw/group');
              }}
            >
              <Button status="danger">{t('common.delete')}</Button>
            </Popconfirm>
          </Space>
        }
      >
        <Descriptions
          column={1}
          labelStyle={{ width: 160 }}
          data={[
            { label: t('hw.group.description'), value: g.description || '-' },
            { label: t('hw.group.values'), value: <HwGroupValues values={g.values} t={t} /> },
            { label: t('hw.group.tasks'), value: g.tasks },
            { label: t('hw.updated'), value: formatTime(g.updatedat) },
          ]}
        />
      </Card>
      <HwGroupDialog t={t} visible={editing} group={g} onClose={() => setEditing(false)} />
    </PageContainer>
  );
}
