import {
  Avatar,
  Button,
  Card,
  Descriptions,
  Form,
  Input,
  Radio,
  Select,
  Table,
  Tabs,
  Tag,
  Typography,
} from '@arco-design/web-react';
import {
  IconArrowRight,
  IconDownload,
  IconMoreVertical,
  IconSearch,
  IconStop,
  IconSwap,
  IconTags,
} from '@arco-design/web-react/icon';
import { useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import styles from './demo.module.css';

const CHAT = Array.from({ length: 6 }, (_, i) => ({
  user: `user${7352772 + i * 131}`,
  key: i % 3,
  time: `13:0${i}:12`,
}));

const METHODS = ['normal', 'flow', 'video', 'web'] as const;

const ROWS = Array.from({ length: 4 }, (_, i) => ({
  id: `${54e6 + i * 173_911}`,
  order: i + 1,
  name: ['Studio A', 'Studio B', 'Studio C', 'Studio D'][i]!,
  duration: `${(i + 1) * 15} min`,
  status: i === 0 ? 'failed' : i === 1 ? 'review' : 'ok',
}));

/**
 * Dashboard > Real-time Monitor, as Arco Pro lays it out: a chat window, the studio preview with its live methods,
 * and the studio status, quick operations and studio information. Every figure is a local sample (DemoNotice).
 */
export default function MonitorPage() {
  const t = useLocale(locale);
  const [method, setMethod] = useState<(typeof METHODS)[number]>('video');
  const status = (s: string) =>
    s === 'failed' ? (
      <Tag color="red" size="small">
        {t('demoMonitor.audit.failed')}
      </Tag>
    ) : s === 'review' ? (
      <Tag color="orange" size="small">
        {t('demoMonitor.audit.review')}
      </Tag>
    ) : (
      <Tag color="green" size="small">
        {t('demoMonitor.audit.ok')}
      </Tag>
    );
  return (
    <PageContainer>
      <DemoNotice />
      <div className={styles.monitor} data-testid="demo-monitor">
        <Card bordered={false} title={t('demoMonitor.chat')} className={styles.monitorChat}>
          <div className={styles.chatFilters}>
            <Select
              defaultValue="all"
              style={{ width: 86 }}
              options={[
                { value: 'all', label: t('demo.all') },
                { value: 'user', label: t('demoMonitor.chat.users') },
              ]}
            />
            <Input suffix={<IconSearch />} placeholder={t('demoMonitor.chat.search')} />
            <Button type="text" icon={<IconDownload />} aria-label={t('demo.download')} />
          </div>
          {CHAT.map((m) => (
            <div key={m.user} className={styles.chatItem}>
              <div className={styles.chatUser}>{m.user}</div>
              <div>{t(`demoMonitor.chat.msg${m.key}`)}</div>
              <div className={styles.muted}>{m.time}</div>
            </div>
          ))}
        </Card>

        <div className={styles.monitorCentre}>
          <Card
            bordered={false}
            title={t('demoMonitor.preview')}
            extra={<IconMoreVertical className={styles.muted} />}
          >
            <div className={styles.studio} />
            <div className={styles.studioFoot}>
              <span>
                <Avatar size={24} style={{ marginRight: 8 }}>
                  A
                </Avatar>
                adminStudio
              </span>
              <span className={styles.muted}>{t('demoMonitor.watching', { n: '36,000' })}</span>
            </div>
          </Card>
          <Card bordered={false}>
            <Tabs defaultActiveTab="method">
              <Tabs.TabPane key="method" title={t('demoMonitor.tab.method')}>
                <Radio.Group
                  type="button"
                  value={method}
                  onChange={(v: (typeof METHODS)[number]) => setMethod(v)}
                  style={{ marginBottom: 16 }}
                >
                  {METHODS.map((m) => (
                    <Radio key={m} value={m}>
                      {t(`demoMonitor.method.${m}`)}
                    </Radio>
                  ))}
                </Radio.Group>
                <div
                  className={styles.tileActions}
                  style={{ justifyContent: 'space-between', marginBottom: 12 }}
                >
                  <Button type="text">{t('demoMonitor.edit')}</Button>
                  <Button disabled>{t('demoMonitor.start')}</Button>
                </div>
                <Table
                  rowKey="id"
                  pagination={false}
                  scroll={{ x: 560 }}
                  border={{ wrapper: false, headerCell: false, bodyCell: false }}
                  rowSelection={{ type: 'checkbox' }}
                  data={ROWS}
                  columns={[
                    { title: t('demoMonitor.col.order'), dataIndex: 'order', width: 70 },
                    {
                      title: t('demoMonitor.col.cover'),
                      dataIndex: 'status',
                      render: (s: string) => (
                        <div className={styles.cover}>
                          <span className={styles.coverTag}>{status(s)}</span>
                        </div>
                      ),
                    },
                    { title: t('demoMonitor.col.name'), dataIndex: 'name' },
                    { title: t('demoMonitor.col.duration'), dataIndex: 'duration' },
                    { title: 'ID', dataIndex: 'id' },
                  ]}
                />
              </Tabs.TabPane>
              <Tabs.TabPane key="users" title={t('demoMonitor.tab.users')}>
                <Typography.Paragraph type="secondary">{t('demoMonitor.users.none')}</Typography.Paragraph>
              </Tabs.TabPane>
            </Tabs>
          </Card>
        </div>

        <div className={styles.monitorSide}>
          <Card
            bordered={false}
            title={
              <span>
                {t('demoMonitor.status')}
                <Tag color="green" size="small" style={{ marginLeft: 8 }}>
                  {t('demoMonitor.smooth')}
                </Tag>
              </span>
            }
          >
            <Descriptions
              column={2}
              size="small"
              colon=":"
              labelStyle={{ paddingRight: 4 }}
              data={(['main', 'hot', 'cold'] as const).flatMap((k) => [
                { label: t(`demoMonitor.bit.${k}`), value: '6 Mbps' },
                { label: t('demoMonitor.frame'), value: 60 },
              ])}
            />
            <Typography.Title heading={6} style={{ marginTop: 12 }}>
              {t('demoMonitor.picture')}
            </Typography.Title>
            <Descriptions
              column={2}
              size="small"
              colon=":"
              data={[
                { label: t('demoMonitor.line'), value: t('demoMonitor.line.hot') },
                { label: 'CDN', value: 'KS' },
                { label: t('demoMonitor.format'), value: 'FLV' },
                { label: t('demoMonitor.quality'), value: t('demoMonitor.quality.origin') },
              ]}
            />
          </Card>
          <Card bordered={false} title={t('demoMonitor.quick')}>
            <div className={styles.quickOps}>
              <Button long icon={<IconTags />}>
                {t('demoMonitor.quick.clarity')}
              </Button>
              <Button long icon={<IconSwap />}>
                {t('demoMonitor.quick.switch')}
              </Button>
              <Button long icon={<IconStop />}>
                {t('demoMonitor.quick.remove')}
              </Button>
              <Button long icon={<IconArrowRight />}>
                {t('demoMonitor.quick.push')}
              </Button>
            </div>
          </Card>
          <Card bordered={false} title={t('demoMonitor.info')}>
            <Form layout="vertical" size="small">
              <Form.Item label={t('demoMonitor.info.title')} required>
                <Input defaultValue={t('demoMonitor.info.titleValue')} />
              </Form.Item>
              <Form.Item label={t('demoMonitor.info.category')} required>
                <Select
                  defaultValue="game"
                  options={[{ value: 'game', label: t('demoMonitor.info.game') }]}
                />
              </Form.Item>
              <Form.Item label={t('demoMonitor.info.notice')}>
                <Input.TextArea defaultValue={t('demoMonitor.info.noticeValue')} autoSize />
              </Form.Item>
              <Button type="primary" long>
                {t('demoMonitor.info.save')}
              </Button>
            </Form>
          </Card>
        </div>
      </div>
    </PageContainer>
  );
}
