import { Button, Card, Message, Radio, Space, Tag, Typography } from '@arco-design/web-react';
import { IconFullscreen } from '@arco-design/web-react/icon';
import type { SceneDocument } from '@cellhub/contract/scenes';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { uploadSceneImage, useScene, useUpdate } from '../api';
import { SceneEditor } from '../components/scene-editor';
import { SceneLiveView } from '../components/scene-live-view';
import locale from '../locale';
import type { SceneDoc } from '../scene-editor-model';
import { useLeaveGuard } from './leave-guard';

export const SCENE_LIST = '/scene/list';

/** /scene/detail/:id — the live view (default) and, for owners, the editor. */
export default function SceneDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useScene(isRecordId(id) ? id : undefined);
  const update = useUpdate('scene', id);
  const [mode, setMode] = useState<'view' | 'edit'>('view');
  const [dirty, setDirty] = useState(false);
  const stageRef = useRef<HTMLDivElement>(null);
  useLeaveGuard(dirty && mode === 'edit', t('scene.leaveConfirm'));
  useEffect(() => {
    if (mode === 'view') setDirty(false);
  }, [mode]);

  const state = recordState(load, {
    badId: !isRecordId(id),
    back: SCENE_LIST,
    backLabel: t('scene.back'),
    notFoundTitle: t('scene.notFound'),
  });
  if (state) return state;
  const scene = load.data!;
  const owner = scene.access === 'owner';
  const deviceProducts = Object.fromEntries(scene.devices.map((d) => [d.sn, d.product_key]));
  const anyControl = scene.devices.some((d) => d.control);

  const leave = (to: () => void) => {
    if (dirty && mode === 'edit' && !window.confirm(t('scene.leaveConfirm'))) return;
    to();
  };

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={
          <Space>
            {scene.name}
            {!owner && <Tag color="gray">{t('scene.viewShare')}</Tag>}
            {scene.model_name && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('scene.fromModel', { name: scene.model_name })}
              </Typography.Text>
            )}
          </Space>
        }
        extra={
          <Space>
            {owner && (
              <Radio.Group
                type="button"
                size="small"
                value={mode}
                onChange={(v: 'view' | 'edit') => (v === 'view' ? leave(() => setMode(v)) : setMode(v))}
                data-testid="scene-mode"
              >
                <Radio value="view">{t('scene.mode.view')}</Radio>
                <Radio value="edit">{t('scene.mode.edit')}</Radio>
              </Radio.Group>
            )}
            {mode === 'view' && (
              <Button
                size="small"
                icon={<IconFullscreen />}
                onClick={() => void stageRef.current?.requestFullscreen?.().catch(() => undefined)}
              >
                {t('scene.present')}
              </Button>
            )}
            <Button size="small" onClick={() => leave(() => void navigate(SCENE_LIST))}>
              {t('scene.back')}
            </Button>
          </Space>
        }
      >
        {mode === 'edit' && owner ? (
          <SceneEditor
            mode="scene"
            doc={scene.document as SceneDoc}
            deviceProducts={deviceProducts}
            sceneId={scene.id}
            onUpload={async (file) => (await uploadSceneImage(scene.id, file)).file}
            onDirty={setDirty}
            t={t}
            onSave={async (doc) => {
              try {
                await update.mutateAsync({ document: doc as SceneDocument });
              } catch (e) {
                Message.error(saveError(e, t));
                throw e;
              }
            }}
          />
        ) : (
          <SceneLiveView
            sceneId={scene.id}
            doc={scene.document as SceneDoc}
            devices={scene.devices}
            canControl={owner || anyControl}
            stageRef={stageRef}
            onLink={(sn) => {
              const pk = deviceProducts[sn];
              if (pk) void navigate(`/device/detail/${encodeURIComponent(pk)}/${encodeURIComponent(sn)}`);
            }}
            t={t}
          />
        )}
      </Card>
    </PageContainer>
  );
}

/** A save refusal with the first refused field, when the server names one. */
export function saveError(e: unknown, t: (k: string) => string): string {
  if (!(e instanceof ApiError)) return t('scene.saveFailed');
  const d = Array.isArray(e.details) ? (e.details as { field?: string; message?: string }[])[0] : undefined;
  return d?.field ? `${e.message}: ${d.field} ${d.message ?? ''}` : e.message;
}
