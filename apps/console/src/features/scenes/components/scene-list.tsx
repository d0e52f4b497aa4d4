import {
  Alert,
  Button,
  Form,
  Input,
  Message,
  Modal,
  Upload,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconUpload } from '@arco-design/web-react/icon';
import {
  parseSceneFile,
  type SceneFileIssue,
  type SceneItem,
  type SceneModelItem,
} from '@cellhub/contract/scenes';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { ButtonAction, EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import {
  exportFile,
  useCopy,
  useDelete,
  useImport,
  useModelList,
  useSceneList,
  type SceneArea,
  type SceneListParams,
} from '../api';
import locale from '../locale';

type Row = SceneItem | SceneModelItem;

/** The scene list and the model list: search, paging, copy, delete, export, import with per-field errors. */
export function SceneList({ area, onCreate }: { area: SceneArea; onCreate: () => void }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<SceneListParams>();
  const scenes = useSceneList(params);
  const models = useModelList(params);
  const query = area === 'scene' ? scenes : models;
  const remove = useDelete(area);
  const copy = useCopy(area);
  const imp = useImport(area);
  const [issues, setIssues] = useState<{ message: string; details: SceneFileIssue[] }>();
  const [copying, setCopying] = useState<Row>();
  const [copyForm] = Form.useForm<{ name: string }>();
  const detail = area === 'scene' ? '/scene/detail' : '/scene/model/detail';
  const p = area === 'scene' ? 'scene' : 'scene.model';

  const importFile = async (file: File) => {
    let json: unknown;
    try {
      json = JSON.parse(await file.text());
    } catch {
      setIssues({ message: t('scene.import.notJson'), details: [] });
      return;
    }
    const checked = area === 'scene' ? parseSceneFile(json, 'scene') : parseSceneFile(json, 'model');
    if (!checked.ok) {
      setIssues({ message: t(`scene.import.code.${checked.code}`), details: checked.details });
      return;
    }
    try {
      const r = await imp.mutateAsync(json);
      Message.success(t('scene.import.done', { name: r.name }));
      void navigate(`${detail}/${r.id}`);
    } catch (e) {
      const details =
        e instanceof ApiError && Array.isArray(e.details) ? (e.details as SceneFileIssue[]) : [];
      setIssues({ message: e instanceof ApiError ? e.message : t('scene.import.failed'), details });
    }
  };

  const columns: TableColumnProps<Row>[] = [
    {
      title: t('scene.col.name'),
      dataIndex: 'name',
      width: 200,
      ellipsis: true,
      render: (v: string, row) => <RowLink to={`${detail}/${row.id}`}>{v}</RowLink>,
    },
    { title: t('scene.col.remark'), dataIndex: 'remark', width: 200, ellipsis: true },
    { title: t('scene.col.widgets'), dataIndex: 'widget_count', width: 90 },
    area === 'scene'
      ? { title: t('scene.col.devices'), dataIndex: 'device_count', width: 90 }
      : { title: t('scene.col.scenes'), dataIndex: 'scene_count', width: 90 },
    ...(area === 'scene'
      ? [
          {
            title: t('scene.col.model'),
            dataIndex: 'model_name',
            width: 140,
            ellipsis: true,
            render: (v: string | null) => v ?? '-',
          },
        ]
      : []),
    { title: t('scene.col.owner'), dataIndex: 'owner', width: 110, ellipsis: true },
    {
      title: t('scene.col.updated'),
      dataIndex: 'updatedat',
      width: 170,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      // Four actions in English ("Open Copy Export Delete") fit without clipping.
      width: 300,
      fixed: 'right',
      render: (_: unknown, row) => {
        const mine = !('access' in row) || row.access === 'owner';
        const links = (
          <>
            <LinkAction to={`${detail}/${row.id}`}>{t('scene.open')}</LinkAction>
            <ButtonAction
              onClick={() => {
                copyForm.setFieldsValue({
                  name: t('scene.copy.defaultName', { name: row.name }).slice(0, 64),
                });
                setCopying(row);
              }}
            >
              {t('scene.copy')}
            </ButtonAction>
            {mine && (
              <ButtonAction onClick={() => void exportFile(area, row.id, row.name).catch(() => undefined)}>
                {t('scene.export')}
              </ButtonAction>
            )}
          </>
        );
        return mine ? (
          <EditDeleteActions
            confirm={t(`${p}.deleteConfirm`, { name: row.name })}
            deleted={t('common.deleteSuccess')}
            onDelete={() => remove.mutateAsync(row.id)}
          >
            {links}
          </EditDeleteActions>
        ) : (
          links
        );
      },
    },
  ];

  const importButton = (
    <Upload
      accept=".json,application/json"
      showUploadList={false}
      autoUpload={false}
      onChange={(_, f) => {
        if (f.originFile) void importFile(f.originFile);
      }}
    >
      <Button icon={<IconUpload />} loading={imp.isPending} data-testid="scene-import">
        {t('scene.import')}
      </Button>
    </Upload>
  );

  return (
    <ListPage<Row, SceneListParams>
      title={t(`${p}.title`)}
      help={t(`${p}.help`)}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('scene.col.name')} field="keyword">
            <Input
              placeholder={t('scene.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 240 }}
              data-testid="scene-keyword"
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t(`${p}.create`), onClick: onCreate }}
      toolbarEnd={importButton}
      rowKey="id"
      tableProps={{ scroll: { x: 1200 } }}
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('scene.total', { total })}
      empty={
        <ListEmpty
          text={t(`${p}.empty`)}
          hint={t(`${p}.empty.hint`)}
          actions={
            <Button type="primary" onClick={onCreate}>
              {t(`${p}.create`)}
            </Button>
          }
        />
      }
    >
      <Modal
        title={t('scene.copy.title', { name: copying?.name ?? '' })}
        visible={!!copying}
        confirmLoading={copy.isPending}
        onCancel={() => setCopying(undefined)}
        onOk={async () => {
          const v = await copyForm.validate();
          try {
            const c = await copy.mutateAsync({ id: copying!.id, name: v.name });
            setCopying(undefined);
            Message.success(t('scene.copied', { name: c.name }));
          } catch (e) {
            Message.error(e instanceof ApiError ? e.message : t('scene.saveFailed'));
          }
        }}
      >
        <Form form={copyForm} layout="vertical">
          <Form.Item
            label={t('scene.copy.name')}
            field="name"
            rules={[{ required: true, message: t('scene.create.nameRequired') }]}
          >
            <Input maxLength={64} data-testid="scene-copy-name" />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        title={t('scene.import.refused')}
        visible={!!issues}
        onOk={() => setIssues(undefined)}
        onCancel={() => setIssues(undefined)}
        hideCancel
      >
        {issues && (
          <div data-testid="scene-import-issues">
            <Alert type="error" content={issues.message} style={{ marginBottom: 8 }} />
            <ul style={{ margin: 0, paddingLeft: 20, maxHeight: 320, overflow: 'auto' }}>
              {issues.details.map((d, i) => (
                <li key={i}>
                  <code>{d.field}</code>: {d.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </Modal>
    </ListPage>
  );
}
