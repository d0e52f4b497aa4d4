import {
  Button,
  Card,
  Descriptions,
  Grid,
  Input,
  Switch,
  Tabs,
  Tag,
  Typography,
} from '@arco-design/web-react';
import { IconPlus, IconThunderbolt } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import styles from './demo.module.css';

// Sample names, translated (cardList.item.*): the page is a demo, but its titles follow the language.
const QUALITY = ['video', 'image', 'caption', 'audio', 'cover', 'title', 'tag'];
const SERVICES = ['distribution', 'smartReview', 'backup', 'edgeCache'];
const RULES = ['sensitiveWords', 'duplicates', 'length', 'links'];

export default function CardListPage() {
  const t = useLocale(locale);
  const [tab, setTab] = useState('all');
  const [keyword, setKeyword] = useState('');
  const nameOf = (id: string) => t(`cardList.item.${id}`);
  const match = (id: string) => nameOf(id).toLowerCase().includes(keyword.toLowerCase());
  const show = (k: string) => tab === 'all' || tab === k;

  return (
    <PageContainer>
      <DemoNotice />
      <Card bordered={false} title={t('cardList.title')}>
        <div className={styles.toolbar}>
          <Tabs type="rounded" activeTab={tab} onChange={setTab}>
            {['all', 'quality', 'service', 'rules'].map((k) => (
              <Tabs.TabPane key={k} title={t(`cardList.tab.${k}`)} />
            ))}
          </Tabs>
          <Input.Search
            style={{ width: 240 }}
            placeholder={t('cardList.search')}
            onChange={setKeyword}
            allowClear
          />
        </div>

        {show('quality') && (
          <section className={styles.section}>
            <Typography.Title heading={6}>{t('cardList.tab.quality')}</Typography.Title>
            <Grid.Row gutter={[16, 16]}>
              <Grid.Col span={6}>
                <div className={styles.addTile}>
                  <IconPlus />
                  <span>{t('cardList.createQuality')}</span>
                </div>
              </Grid.Col>
              {QUALITY.filter(match).map((id, i) => (
                <Grid.Col span={6} key={id}>
                  <Card className={styles.tile} title={nameOf(id)} size="small">
                    <div className={styles.muted}>2024-05-{String(10 + i).padStart(2, '0')} 10:00:00</div>
                    <Descriptions
                      column={3}
                      layout="vertical"
                      size="small"
                      data={[
                        { label: t('cardList.pending'), value: 120 + i * 17 },
                        { label: t('cardList.duration'), value: `${3 + i}h` },
                        { label: t('cardList.time'), value: 30 + i * 3 },
                      ]}
                    />
                    <div className={styles.tileActions}>
                      <Button size="small">{t('cardList.remove')}</Button>
                      <Button size="small" type="primary">
                        {t('cardList.inspect')}
                      </Button>
                    </div>
                  </Card>
                </Grid.Col>
              ))}
            </Grid.Row>
          </section>
        )}

        {show('service') && (
          <section className={styles.section}>
            <Typography.Title heading={6}>{t('cardList.tab.service')}</Typography.Title>
            <Grid.Row gutter={[16, 16]}>
              {SERVICES.filter(match).map((id, i) => (
                <Grid.Col span={6} key={id}>
                  <Card className={styles.tile} size="small">
                    <div className={styles.serviceHead}>
                      <IconThunderbolt className={styles.serviceIcon} />
                      <span className={styles.tileTitle}>{nameOf(id)}</span>
                      {i === 0 && <Tag color="green">{t('cardList.opened')}</Tag>}
                      {i === 3 && <Tag color="red">{t('cardList.expired')}</Tag>}
                    </div>
                    <div className={styles.muted}>{t('cardList.serviceDesc', { name: nameOf(id) })}</div>
                    <div className={styles.tileActions}>
                      <Button size="small" type={i === 0 ? 'secondary' : 'outline'}>
                        {i === 3 ? t('cardList.renew') : t('cardList.open')}
                      </Button>
                    </div>
                  </Card>
                </Grid.Col>
              ))}
            </Grid.Row>
          </section>
        )}

        {show('rules') && (
          <section className={styles.section}>
            <Typography.Title heading={6}>{t('cardList.tab.rules')}</Typography.Title>
            <Grid.Row gutter={[16, 16]}>
              {RULES.filter(match).map((id, i) => (
                <Grid.Col span={6} key={id}>
                  <Card className={styles.tile} size="small">
                    <div className={styles.serviceHead}>
                      <span className={styles.tileTitle}>{nameOf(id)}</span>
                      {i % 2 === 0 && <Tag color="arcoblue">{t('cardList.enabled')}</Tag>}
                      <Switch size="small" defaultChecked={i % 2 === 0} style={{ marginLeft: 'auto' }} />
                    </div>
                    <div className={styles.muted}>{t('cardList.ruleDesc', { name: nameOf(id) })}</div>
                  </Card>
                </Grid.Col>
              ))}
            </Grid.Row>
          </section>
        )}
      </Card>
    </PageContainer>
  );
}
