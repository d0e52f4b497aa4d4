import { Button, Card, Message, Space } from '@arco-design/web-react';
import type { ModelDocument } from '@cellhub/contract/scenes';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { useModel, useUpdate } from '../api';
import { SceneEditor } from '../components/scene-editor';
import locale from '../locale';
import type { SceneDoc } from '../scene-editor-model';
import { useLeaveGuard } from './leave-guard';
import { saveError } from './scene-detail-page';

export const MODEL_LIST = '/scene/model/list';

/** /scene/model/detail/:id — a model in the editor: widgets bound to slots, and the slots panel. */
export default function ModelDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useModel(isRecordId(id) ? id : undefined);
  const update = useUpdate('model', id);
  const [dirty, setDirty] = useState(false);
  useLeaveGuard(dirty, t('scene.leaveConfirm'));
  const state = recordState(load, {
    badId: !isRecordId(id),
    back: MODEL_LIST,
    backLabel: t('scene.back'),
    notFoundTitle: t('scene.model.notFound'),
  });
  if (state) return state;
  const model = load.data!;
  return (
    <PageContainer>
      <Card
        bordered={false}
        title={model.name}
        extra={
          <Space>
            <Button
              size="small"
              onClick={() => {
                if (!dirty || window.confirm(t('scene.leaveConfirm'))) void navigate(MODEL_LIST);
              }}
            >
              {t('scene.back')}
            </Button>
          </Space>
        }
      >
        <SceneEditor
          mode="model"
          doc={model.document as SceneDoc}
          slots={model.slots}
          onDirty={setDirty}
          t={t}
          onSave={async (doc, slots) => {
            try {
              await update.mutateAsync({ document: doc as ModelDocument, slots });
            } catch (e) {
              Message.error(saveError(e, t));
              throw e;
            }
          }}
        />
      </Card>
    </PageContainer>
  );
}
