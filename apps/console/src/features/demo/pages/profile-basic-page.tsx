import { Badge, Button, Card, Descriptions, Space, Steps, Table } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';

type T = (key: string) => string;

const params = (t: T, rate: number, frame: number) => [
  { label: t('groupForm.mode'), value: 'custom' },
  { label: t('groupForm.resolution'), value: '1080p' },
  { label: t('groupForm.codec'), value: 'H.264' },
  { label: t('groupForm.rate'), value: `${rate} bps` },
  { label: t('groupForm.frame'), value: `${frame} fps` },
  { label: t('groupForm.audioRate'), value: '128 kbps' },
];

const log = (t: T) => [
  {
    no: 'P-1024',
    content: `${t('groupForm.rate')} 600 → 800 bps`,
    status: 'pending',
    time: '2024-05-12 10:20:00',
  },
  {
    no: 'P-1019',
    content: `${t('groupForm.frame')} 30 → 25 fps`,
    status: 'passed',
    time: '2024-05-03 16:05:00',
  },
  {
    no: 'P-1007',
    content: `${t('groupForm.resolution')} 720p → 1080p`,
    status: 'passed',
    time: '2024-04-21 09:41:00',
  },
];

export default function ProfileBasicPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const labelStyle = { textAlign: 'right' as const, paddingRight: 24, color: 'var(--color-text-3)' };
  return (
    <PageContainer>
      <DemoNotice />
      <Card
        bordered={false}
        title={t('profile.title')}
        extra={
          <Space>
            <Button>{t('profile.cancel')}</Button>
            <Button type="primary" onClick={() => void navigate(-1)}>
              {t('profile.back')}
            </Button>
          </Space>
        }
      >
        <Steps current={2} style={{ maxWidth: 780, margin: '16px auto' }}>
          <Steps.Step title={t('profile.commit')} />
          <Steps.Step title={t('profile.approval')} />
          <Steps.Step title={t('profile.finish')} />
        </Steps>
      </Card>
      <Card bordered={false} title={t('profile.current')}>
        <Descriptions column={3} labelStyle={labelStyle} data={params(t, 800, 25)} />
      </Card>
      <Card bordered={false} title={t('profile.origin')}>
        <Descriptions column={3} labelStyle={labelStyle} data={params(t, 600, 30)} />
      </Card>
      <Card bordered={false} title={t('profile.log')}>
        <Table
          rowKey="no"
          pagination={false}
          data={log(t)}
          columns={[
            { title: t('profile.log.no'), dataIndex: 'no' },
            { title: t('profile.log.content'), dataIndex: 'content' },
            {
              title: t('profile.log.status'),
              dataIndex: 'status',
              render: (v: string) =>
                v === 'passed' ? (
                  <Badge status="success" text={t('profile.log.passed')} />
                ) : (
                  <Badge status="processing" text={t('profile.log.pending')} />
                ),
            },
            { title: t('profile.log.time'), dataIndex: 'time' },
          ]}
        />
      </Card>
    </PageContainer>
  );
}
