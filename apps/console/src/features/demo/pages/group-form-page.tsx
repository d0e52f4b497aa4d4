import { Button, Card, Form, Grid, Input, InputNumber, Message, Select } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import { AD_TEXT_MAX, BIT_RATE, FRAME_RATE } from '../step-form-rules';
import styles from './demo.module.css';

const Col = ({ children }: { children: ReactNode }) => <Grid.Col span={8}>{children}</Grid.Col>;

export default function GroupFormPage() {
  const t = useLocale(locale);
  const [form] = Form.useForm();

  const submit = async () => {
    try {
      await form.validate();
      Message.success(t('groupForm.submitted'));
    } catch {
      // The fields show what is wrong.
    }
  };

  return (
    <PageContainer>
      <DemoNotice />
      <Form form={form} layout="vertical">
        <Card bordered={false} title={t('groupForm.video')}>
          <Grid.Row gutter={80}>
            <Col>
              <Form.Item label={t('groupForm.mode')} field="video.mode" initialValue="custom">
                <Select options={['custom', 'auto'].map((v) => ({ value: v, label: v }))} />
              </Form.Item>
            </Col>
            <Col>
              <Form.Item label={t('groupForm.resolution')} field="video.resolution" initialValue="1080p">
                <Select options={['720p', '1080p', '4K'].map((v) => ({ value: v, label: v }))} />
              </Form.Item>
            </Col>
            <Col>
              <Form.Item label={t('groupForm.codec')} field="video.codec" initialValue="H.264">
                <Select options={['H.264', 'H.265'].map((v) => ({ value: v, label: v }))} />
              </Form.Item>
            </Col>
            <Col>
              <Form.Item
                label={t('groupForm.rate')}
                field="video.rate"
                initialValue={800}
                rules={[
                  { required: true, message: t('groupForm.rate.rule') },
                  { type: 'number', min: BIT_RATE.min, max: BIT_RATE.max, message: t('groupForm.rate.rule') },
                ]}
              >
                <InputNumber suffix="bps" />
              </Form.Item>
            </Col>
            <Col>
              <Form.Item
                label={t('groupForm.frame')}
                field="video.frame"
                initialValue={25}
                rules={[
                  { required: true, message: t('groupForm.frame.rule') },
                  {
                    type: 'number',
                    min: FRAME_RATE.min,
                    max: FRAME_RATE.max,
                    message: t('groupForm.frame.rule'),
                  },
                ]}
              >
                <InputNumber suffix="fps" />
              </Form.Item>
            </Col>
          </Grid.Row>
        </Card>
        <Card bordered={false} title={t('groupForm.audio')} style={{ marginTop: 16 }}>
          <Grid.Row gutter={80}>
            <Col>
              <Form.Item label={t('groupForm.codec')} field="audio.codec" initialValue="AAC">
                <Select options={['AAC', 'MP3', 'Opus'].map((v) => ({ value: v, label: v }))} />
              </Form.Item>
            </Col>
            <Col>
              <Form.Item label={t('groupForm.audioRate')} field="audio.rate" initialValue={128}>
                <InputNumber suffix="kbps" min={8} max={512} />
              </Form.Item>
            </Col>
            <Col>
              <Form.Item label={t('groupForm.sample')} field="audio.sample" initialValue="44100">
                <Select options={['32000', '44100', '48000'].map((v) => ({ value: v, label: `${v} Hz` }))} />
              </Form.Item>
            </Col>
          </Grid.Row>
        </Card>
        <Card bordered={false} title={t('groupForm.explain')} style={{ marginTop: 16 }}>
          <Form.Item field="explain" rules={[{ maxLength: AD_TEXT_MAX, message: t('stepForm.ad.rule') }]}>
            <Input.TextArea
              placeholder={t('groupForm.explain.placeholder')}
              maxLength={{ length: AD_TEXT_MAX, errorOnly: true }}
              showWordLimit
              autoSize={{ minRows: 3 }}
            />
          </Form.Item>
        </Card>
      </Form>
      <div className={styles.actionBar}>
        <Button onClick={() => form.resetFields()}>{t('demo.reset')}</Button>
        <Button type="primary" onClick={() => void submit()}>
          {t('groupForm.submit')}
        </Button>
      </div>
    </PageContainer>
  );
}
