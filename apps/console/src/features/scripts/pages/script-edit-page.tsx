import { Button, Card, Form, Grid, Input, Message, Radio, Space, Switch } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { showFieldErrors } from '../../../components/form-states';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useRole } from '../../../lib/user';
import { useSaveScript, useScript } from '../api';
import { LazyCodeEditor } from '../components/lazy-code-editor';
import { TestRunPanel } from '../components/test-run-panel';
import locale from '../locale';

interface Values {
  scope: 'product' | 'shared';
  product_key?: string;
  name: string;
  description: string;
  source: string;
  note: string;
  keep_raw: boolean;
}

export const STARTER_SOURCE = `// decode: the raw bytes of an uplink -> properties (and events)
// bytes: numbers 0-255; ctx: { hex, text, sn, product_key, ts }
function decode(bytes, ctx) {
  log('uplink', ctx.hex);
  var temp = (bytes[0] << 8) | bytes[1];
  if (temp & 0x8000) temp -= 0x10000;
  return { properties: { temperature: temp / 10 } };
}

// encode: a command { id, type, data } -> the raw bytes to send (array or hex string)
function encode(command, ctx) {
  return command.type === 'hex' ? command.data : [];
}
`;

/** The line of a refused source, from the server's "line N: ..." detail. */
function lineOf(e: unknown): number | null {
  if (!(e instanceof ApiError) || !Array.isArray(e.details)) return null;
  const d = (e.details as { field?: string; message?: string }[]).find((x) => x.field === 'source');
  const m = d?.message ? /^line (\d+):/.exec(d.message) : null;
  return m ? Number(m[1]) : null;
}

/** /script/create and /script/edit/:id: the editor (CodeMirror, loaded lazily) beside a test run. */
export default function ScriptEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useScript(id !== undefined && isRecordId(id) ? id : undefined);
  const save = useSaveScript();
  const role = useRole();
  const [form] = Form.useForm<Values>();
  const current = load.data;
  const [source, setSource] = useState(id === undefined ? STARTER_SOURCE : '');
  const [errorLine, setErrorLine] = useState<number | null>(null);
  const scope = Form.useWatch('scope', form) as Values['scope'] | undefined;
  const productKey = Form.useWatch('product_key', form) as string | undefined;

  useEffect(() => {
    if (current) {
      form.setFieldsValue({
        scope: current.shared ? 'shared' : 'product',
        product_key: current.product_key ?? undefined,
        name: current.name,
        description: current.description,
        source: current.source,
        keep_raw: current.keep_raw,
      });
      setSource(current.source);
    }
  }, [current, form]);

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    try {
      const common = {
        name: values.name,
        description: values.description ?? '',
        source,
        note: values.note ?? '',
        keep_raw: values.keep_raw ?? false,
      };
      const saved = await save.mutateAsync(
        id === undefined
          ? { body: { ...common, product_key: values.scope === 'shared' ? null : values.product_key } }
          : { id, body: common },
      );
      Message.success(t('script.saved'));
      void navigate(`/script/detail/${saved.id}`);
    } catch (e) {
      if (showFieldErrors(form, e)) return;
      const line = lineOf(e);
      if (line !== null) setErrorLine(line);
      if (e instanceof ApiError && Array.isArray(e.details)) {
        const d = (e.details as { field?: string; message?: string }[]).find((x) => x.field === 'source');
        if (d?.message) form.setFields({ source: { error: { message: d.message } } });
      }
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/script/list',
    backLabel: t('script.back'),
    notFoundTitle: t('script.notFound'),
  });
  if (state) return state;

  return (
    <PageContainer>
      <Grid.Row gutter={16}>
        <Grid.Col xs={24} lg={14}>
          <Card
            bordered={false}
            title={id === undefined ? t('script.form.createTitle') : t('script.form.editTitle')}
          >
            <Form<Values>
              form={form}
              layout="vertical"
              initialValues={{
                scope: 'product',
                description: '',
                note: '',
                source: STARTER_SOURCE,
                keep_raw: false,
              }}
              onSubmit={() => void submit()}
            >
              <Grid.Row gutter={16}>
                <Grid.Col span={12}>
                  <Form.Item
                    label={t('script.form.name')}
                    field="name"
                    rules={[{ required: true, message: t('script.form.name.required') }]}
                  >
                    <Input
                      placeholder={t('script.form.name.placeholder')}
                      maxLength={64}
                      data-testid="script-name"
                    />
                  </Form.Item>
                </Grid.Col>
                <Grid.Col span={12}>
                  <Form.Item label={t('script.form.description')} field="description">
                    <Input maxLength={500} />
                  </Form.Item>
                </Grid.Col>
              </Grid.Row>
              {role === 'admin' && (
                <Form.Item
                  label={t('script.form.scope')}
                  field="scope"
                  extra={id === undefined ? undefined : t('script.form.product.fixed')}
                >
                  <Radio.Group disabled={id !== undefined}>
                    <Radio value="product">{t('script.form.scope.product')}</Radio>
                    <Radio value="shared">{t('script.form.scope.shared')}</Radio>
                  </Radio.Group>
                </Form.Item>
              )}
              {scope !== 'shared' && (
                <Form.Item
                  label={t('script.form.product')}
                  field="product_key"
                  extra={id === undefined || role === 'admin' ? undefined : t('script.form.product.fixed')}
                  rules={[{ required: true, message: t('script.form.product.required') }]}
                >
                  <ProductSelect
                    disabled={id !== undefined}
                    data-testid="script-product"
                    known={
                      current?.product_key
                        ? [{ product_key: current.product_key, name: current.product_name ?? '' }]
                        : undefined
                    }
                  />
                </Form.Item>
              )}
              <Form.Item
                label={t('script.form.source')}
                field="source"
                extra={t('script.form.contract')}
                rules={[
                  { validator: (_v, cb) => cb(source.trim() ? undefined : t('script.form.source.required')) },
                ]}
              >
                <LazyCodeEditor
                  loading={t('script.editorLoading')}
                  value={source}
                  onChange={(v) => {
                    setSource(v);
                    setErrorLine(null);
                  }}
                  errorLine={errorLine}
                />
              </Form.Item>
              <Form.Item
                label={t('script.form.keepRaw')}
                field="keep_raw"
                triggerPropName="checked"
                extra={t('script.form.keepRaw.help')}
              >
                <Switch data-testid="script-keep-raw" />
              </Form.Item>
              <Form.Item label={t('script.form.note')} field="note">
                <Input placeholder={t('script.form.note.placeholder')} maxLength={200} />
              </Form.Item>
              <Space>
                <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="script-save">
                  {t('common.save')}
                </Button>
                <Button
                  onClick={() => void navigate(id === undefined ? '/script/list' : `/script/detail/${id}`)}
                >
                  {t('common.back')}
                </Button>
              </Space>
            </Form>
          </Card>
        </Grid.Col>
        <Grid.Col xs={24} lg={10}>
          <Card bordered={false} title={t('script.test.title')}>
            <TestRunPanel source={source} productKey={productKey} onErrorLine={setErrorLine} />
          </Card>
        </Grid.Col>
      </Grid.Row>
    </PageContainer>
  );
}
