import { Button, Card, Form, Message, Space } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useSavePlatform } from '../api';
import PlatformFormFields, {
  bodyOf,
  newPlatformValues,
  showPlatformError,
  type PlatformValues,
} from '../components/platform-form';
import locale from '../locale';
import styles from './platform.module.css';

export default function PlatformCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<PlatformValues>();
  const save = useSavePlatform();

  const submit = async () => {
    const values = await form.validate();
    try {
      await save.mutateAsync({ body: bodyOf(values) });
      Message.success(t('platform.created'));
      void navigate('/platform/list');
    } catch (e) {
      showPlatformError(form, e);
    }
  };

  return (
    <PageContainer>
      <Card bordered={false} title={t('platform.create')} className={styles.formCard}>
        <Form<PlatformValues>
          form={form}
          layout="vertical"
          initialValues={newPlatformValues()}
          onSubmit={() => void submit()}
        >
          <PlatformFormFields form={form} t={t} />
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('platform.save')}
            </Button>
            <Button onClick={() => void navigate('/platform/list')}>{t('platform.cancel')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
