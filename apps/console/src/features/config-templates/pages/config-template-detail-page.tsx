import { configTemplateBody, type ConfigApplySummary } from '@cellhub/contract/config-templates';
import { Button, Card, Form, Input, Message, Spin, Tag, type TableColumnProps } from '@arco-design/web-react';
import { IconCheck, IconSave } from '@arco-design/web-react/icon';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { LiveRunCard, RunHistoryCard, TargetsCard } from '../../../components/run-cards';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeviceEvents } from '../../../lib/realtime';
import {
  useApply,
  useApplyList,
  useApplyTemplate,
  useRefreshApply,
  useSaveTemplate,
  useTemplate,
} from '../api';
import ApplyProgress from '../components/apply-progress';
import FieldsEditor from '../components/fields-editor';
import { type FieldState, fromConfig, toConfig } from '../config-fields';
import locale from '../locale';
import styles from '../../../components/run-page.module.css';
import templateStyles from './config-template.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

/** /device/config-template/:id; `new` creates one. */
export default function ConfigTemplateDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const param = useParams().id;
  const id = param && param !== 'new' ? Number(param) : undefined;
  const load = useTemplate(id);
  const { data: template, isLoading } = load;
  const save = useSaveTemplate();
  const [form] = Form.useForm<{ name: string; description: string }>();
  const [fields, setFields] = useState<FieldState>({});
  const [invalid, setInvalid] = useState<Set<string>>(new Set());

  useEffect(() => {
    if (!template) return;
    form.setFieldsValue({ name: template.name, description: template.description });
    setFields(fromConfig(template.config));
  }, [template, form]);

  const submit = async () => {
    let values: { name: string; description: string };
    try {
      values = await form.validate();
    } catch {
      return;
    }
    if (Object.keys(fields).length === 0) {
      Message.warning(t('configTemplate.form.noFields'));
      return;
    }
    const body = {
      ...values,
      description: values.description ?? '',
      config: toConfig(fields, template?.config),
    };
    // The contract's own schema finds bad values before the server does, and names the fields.
    const parsed = configTemplateBody.safeParse(body);
    if (!parsed.success) {
      const bad = parsed.error.issues.map((i) => i.path.slice(1).join('.'));
      setInvalid(new Set(bad));
      Message.error(t('configTemplate.form.invalid', { fields: bad.join(', ') }));
      return;
    }
    setInvalid(new Set());
    try {
      const saved = await save.mutateAsync({ id, body });
      Message.success(t('configTemplate.form.saved'));
      if (id === undefined) void navigate(`/device/config-template/${saved.id}`, { replace: true });
    } catch {
      // The request layer has shown why.
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/device/config-template',
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id === undefined ? t('configTemplate.form.createTitle') : t('configTemplate.form.title')}
        extra={
          <Button type="primary" icon={<IconSave />} loading={save.isPending} onClick={() => void submit()}>
            {t('common.save')}
          </Button>
        }
      >
        <Spin loading={id !== undefined && isLoading} style={{ display: 'block' }}>
          <Form form={form} layout="inline" initialValues={{ description: '' }} style={{ marginBottom: 16 }}>
            <Form.Item
              label={t('configTemplate.form.name')}
              field="name"
              rules={[{ required: true, message: t('configTemplate.form.name.required') }]}
            >
              <Input maxLength={64} style={{ width: 260 }} data-testid="ct-name" />
            </Form.Item>
            <Form.Item label={t('configTemplate.form.description')} field="description">
              <Input maxLength={200} style={{ width: 420 }} />
            </Form.Item>
          </Form>
          <div className={templateStyles.hint}>
            {t('configTemplate.form.fieldsHint')}{' '}
            <Tag size="small" color="arcoblue">
              {t('configTemplate.form.chosen', { count: Object.keys(fields).length })}
            </Tag>
          </div>
          <FieldsEditor value={fields} onChange={setFields} invalid={invalid} />
        </Spin>
      </Card>
      {id === undefined ? (
        <Card bordered={false}>
          <div className={styles.muted}>{t('configTemplate.apply.saveFirst')}</div>
        </Card>
      ) : (
        <ApplySection id={id} />
      )}
    </PageContainer>
  );
}

function ApplySection({ id }: { id: number }) {
  const t = useLocale(locale);
  const [targets, setTargets] = useState<string[]>([]);
  const [page, setPage] = useState(1);
  const { data: applies } = useApplyList(id, page);
  const [chosen, setChosen] = useState<number | undefined>();
  const applyId = chosen ?? applies?.data[0]?.id;
  const { data: apply } = useApply(id, applyId);
  const run = useApplyTemplate(id);
  const refresh = useRefreshApply();

  // device.config says a device reported its version; device.online that a pending one may now get it.
  const sns = useMemo(
    () => (apply?.results ?? []).filter((r) => r.status === 'pending').map((r) => r.sn),
    [apply],
  );
  const live = useDeviceEvents(
    sns.length > 0 ? { sns, types: ['device.config', 'device.online'] } : null,
    () => {
      void refresh(id);
    },
  );

  // Whatever happened before the subscription was in place is read once it is.
  const applyKey = apply?.id;
  useEffect(() => {
    if (live === 'open' && applyKey !== undefined) void refresh(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live, applyKey, id]);

  const submit = async () => {
    if (targets.length === 0) {
      Message.warning(t('configTemplate.apply.noTargets'));
      return;
    }
    try {
      const result = await run.mutateAsync(targets);
      setChosen(result.id);
      setPage(1);
      Message.success(t('configTemplate.apply.done', { count: result.results.length }));
    } catch {
      // The request layer has shown why.
    }
  };

  const columns: TableColumnProps<ConfigApplySummary>[] = [
    {
      title: t('configTemplate.history.at'),
      dataIndex: 'createdat',
      render: (v: string, row) => (
        <Button type="text" size="mini" onClick={() => setChosen(row.id)}>
          {formatTime(v)}
          {row.id === applyId && (
            <Tag size="small" color="arcoblue" style={{ marginLeft: 8 }}>
              ✓
            </Tag>
          )}
        </Button>
      ),
    },
    { title: t('configTemplate.history.devices'), dataIndex: 'total' },
    { title: t('configTemplate.history.synced'), dataIndex: 'synced' },
  ];

  return (
    <>
      <TargetsCard
        title={t('configTemplate.apply.title')}
        hint={<div className={templateStyles.hint}>{t('configTemplate.apply.hint')}</div>}
        targets={targets}
        onTargets={setTargets}
        placeholder={t('configTemplate.apply.targets.placeholder')}
        onlineText={t('configTemplate.online')}
        offlineText={t('configTemplate.offline')}
        action={{
          label: t('configTemplate.apply.button'),
          icon: <IconCheck />,
          loading: run.isPending,
          onRun: () => void submit(),
        }}
      />
      <LiveRunCard
        title={t('configTemplate.progress.title')}
        following={sns.length > 0}
        live={live === 'open'}
        liveText={t('configTemplate.progress.live')}
      >
        <ApplyProgress apply={apply} />
      </LiveRunCard>
      <RunHistoryCard<ConfigApplySummary>
        title={t('configTemplate.history.title')}
        columns={columns}
        data={applies?.data ?? []}
        total={applies?.total ?? 0}
        page={page}
        onPage={setPage}
      />
    </>
  );
}
