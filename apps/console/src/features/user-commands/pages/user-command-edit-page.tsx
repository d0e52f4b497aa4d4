import type { CommandType } from '@cellhub/contract/protocol';
import { checkCommandValue } from '@cellhub/contract/user-commands';
import { Button, Card, Form, Input, Message, Radio, Space, Spin } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveUserCommand, useUserCommand } from '../api';
import { normaliseCommandData } from '../../../lib/command-value';
import locale from '../locale';
import styles from '../../../components/run-page.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

interface Values {
  name: string;
  type: CommandType;
  data: string;
  description: string;
}

/** Create (/device/user-command/create) and edit (/device/user-command/edit/:id) share this form. */
export default function UserCommandEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useUserCommand(id);
  const { data: current, isLoading } = load;
  const save = useSaveUserCommand();
  const [form] = Form.useForm<Values>();
  const type = Form.useWatch('type', form) as CommandType | undefined;

  useEffect(() => {
    if (current)
      form.setFieldsValue({
        name: current.name,
        type: current.type,
        data: current.data,
        description: current.description,
      });
  }, [current, form]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    try {
      const saved = await save.mutateAsync({
        id,
        body: {
          ...values,
          data: normaliseCommandData(values.type, values.data),
          description: values.description ?? '',
        },
      });
      Message.success(t('userCommand.form.saved'));
      void navigate(`/device/user-command/detail/${saved.id}`);
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      // The seed's command codes are about the data field; anything else is a toast.
      if ([90000, 90001, 70003].includes(e.code)) form.setFields({ data: { error: { message: e.message } } });
      else if (e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/device/user-command/list',
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        className={styles.formCard}
        title={id === undefined ? t('userCommand.form.createTitle') : t('userCommand.form.editTitle')}
      >
        <Spin loading={id !== undefined && isLoading} style={{ display: 'block' }}>
          <Form<Values>
            form={form}
            layout="vertical"
            initialValues={{ type: 'hex', description: '' }}
            onSubmit={() => void submit()}
          >
            <Form.Item
              label={t('userCommand.form.name')}
              field="name"
              rules={[{ required: true, message: t('userCommand.form.name.required') }]}
            >
              <Input
                placeholder={t('userCommand.form.name.placeholder')}
                maxLength={64}
                data-testid="uc-name"
              />
            </Form.Item>
            <Form.Item label={t('userCommand.form.type')} field="type">
              <Radio.Group type="button">
                <Radio value="hex">{t('userCommand.type.hex')}</Radio>
                <Radio value="string">{t('userCommand.type.string')}</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item
              label={t('userCommand.form.data')}
              field="data"
              rules={[
                {
                  validator: (value: string | undefined, callback) => {
                    const kind = type ?? 'hex';
                    const problem = checkCommandValue(kind, normaliseCommandData(kind, value));
                    callback(problem ? t(`userCommand.error.${problem.reason}`) : undefined);
                  },
                },
              ]}
            >
              <Input.TextArea
                data-testid="uc-data"
                className={styles.mono}
                autoSize={{ minRows: 3, maxRows: 10 }}
                placeholder={
                  type === 'string'
                    ? t('userCommand.form.data.stringPlaceholder')
                    : t('userCommand.form.data.hexPlaceholder')
                }
              />
            </Form.Item>
            <Form.Item label={t('userCommand.form.description')} field="description">
              <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
            </Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" loading={save.isPending}>
                {t('common.save')}
              </Button>
              <Button onClick={() => void navigate('/device/user-command/list')}>{t('common.back')}</Button>
            </Space>
          </Form>
        </Spin>
      </Card>
    </PageContainer>
  );
}
