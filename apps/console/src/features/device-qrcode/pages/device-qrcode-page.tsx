/**
 * The page behind the QR code on a device's label (/qrcode/d/:sn): anyone who scans it sees what the server
 * calls safe (name, product, online, last seen). No sign-in; nothing here needs a token.
 */
import { Badge, Button, Card, Descriptions, Result, Spin } from '@arco-design/web-react';
import { Link, useParams } from 'react-router';
import { Logo } from '../../../components/logo';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { usePublicDevice } from '../api';
import locale from '../locale';
import styles from './device-qrcode-page.module.css';

export default function DeviceQrcodePage() {
  const t = useLocale(locale);
  const { locale: current, setLocale } = useLocaleState();
  const { sn } = useParams();
  const { data, error, isLoading } = usePublicDevice(sn);

  let body;
  if (isLoading) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else if (data) {
    body = (
      <Descriptions
        column={1}
        labelStyle={{ width: 110 }}
        data={[
          { label: t('qrcode.name'), value: data.name || t('qrcode.unnamed') },
          { label: t('qrcode.sn'), value: data.sn },
          { label: t('qrcode.product'), value: data.product_name },
          {
            label: t('qrcode.status'),
            value: data.online ? (
              <Badge status="success" text={t('qrcode.online')} />
            ) : (
              <Badge status="default" text={t('qrcode.offline')} />
            ),
          },
          {
            label: t('qrcode.lastSeen'),
            value: data.lastcommunicationat ? formatTime(data.lastcommunicationat) : t('qrcode.never'),
          },
        ]}
      />
    );
  } else if (error) {
    const missing = error instanceof ApiError && error.code === 10117;
    body = (
      <Result
        status={missing ? '404' : 'error'}
        title={missing ? t('qrcode.notFound') : t('qrcode.error')}
        subTitle={missing ? t('qrcode.notFound.hint') : undefined}
      />
    );
  }

  return (
    <div className={styles.page}>
      <div className={styles.brand}>
        <Logo size={32} />
        Cellhub
      </div>
      <Card className={styles.card} title={t('qrcode.title')} bordered={false}>
        {body}
      </Card>
      <div className={styles.footer}>
        <Link to="/login">
          <Button type="text">{t('qrcode.manage')}</Button>
        </Link>
        <Button type="text" onClick={() => void setLocale(current === 'zh-CN' ? 'en-US' : 'zh-CN')}>
          {current === 'zh-CN' ? 'English' : '中文'}
        </Button>
      </div>
    </div>
  );
}
