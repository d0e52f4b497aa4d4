import { Button, Card, Descriptions, Result, Space, Spin, Table, Typography } from '@arco-design/web-react';
import { SHARE_TOKEN_RULE } from '@cellhub/contract/shares';
import { useNavigate, useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { ResultPage } from '../../../components/result-page/result-page';
import { ExpiryText, ShareRightTag } from '../../../components/share-dialog/share-fields';
import { loadErrorTable } from '../../../lib/error-table';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { toast } from '../../../lib/toast';
import { useAcceptShareLink, useShareLinkPreview } from '../api';
import locale from '../locale';
import { useEffect, useState } from 'react';
import { Nowrap } from '../components/share-cells';
import styles from '../components/share-cells.module.css';

/** The code table's text of a code in the active language (the request layer's wording of a refusal). */
function useCodeText(code: number): string | undefined {
  const { locale: lang } = useLocaleState();
  const [text, setText] = useState<string>();
  useEffect(() => {
    let live = true;
    void loadErrorTable().then((table) => live && setText(table?.errorText(code, lang)));
    return () => {
      live = false;
    };
  }, [code, lang]);
  return text;
}

/**
 * /share?token=…: a share link opened by a signed-in user. It shows whose devices, which right and until when,
 * and accepts them into the user's device list. A bad, revoked, expired or used-up link answers 10211 (all alike)
 * and the owner opening their own link 10212; each is said with the code table's text.
 */
export default function SharePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const raw = search.get('token') ?? '';
  const token = SHARE_TOKEN_RULE.test(raw) ? raw : undefined;
  const preview = useShareLinkPreview(token);
  const accept = useAcceptShareLink(token ?? '');
  const invalidText = useCodeText(10211);
  const ownText = useCodeText(10212);

  const code = preview.error instanceof ApiError ? preview.error.code : undefined;
  const toDevices = () => void navigate('/device/list');

  // Not a token at all, or one the server does not know (or no longer honours): the shared result page.
  if (!token || code === 10211)
    return (
      <ResultPage
        problem="notFound"
        notFoundTitle={invalidText ?? t('share.landing.failed')}
        subject={t('share.landing.invalid.hint')}
        back="/device/list"
        backLabel={t('share.landing.toDevices')}
      />
    );
  if (code === 10212)
    return (
      <PageContainer>
        <Card bordered={false}>
          <Result
            status="warning"
            title={ownText ?? preview.error?.message}
            subTitle={t('share.landing.own.hint')}
            data-testid="share-own-link"
            extra={
              <Space>
                <Button onClick={toDevices}>{t('share.landing.toDevices')}</Button>
                <Button type="primary" onClick={() => void navigate('/myshare/list?tab=links')}>
                  {t('share.landing.toMyShares')}
                </Button>
              </Space>
            }
          />
        </Card>
      </PageContainer>
    );
  if (preview.isError)
    return (
      <ResultPage
        error={preview.error}
        notFoundTitle={t('share.landing.failed')}
        back="/device/list"
        backLabel={t('share.landing.toDevices')}
        onRetry={() => void preview.refetch()}
      />
    );

  const p = preview.data;
  if (!p)
    return (
      <PageContainer>
        <Card bordered={false}>
          <Spin style={{ display: 'block', margin: 48 }} />
        </Card>
      </PageContainer>
    );

  const onAccept = async () => {
    try {
      const done = await accept.mutateAsync();
      toast('success', t('share.landing.accepted', { count: done.created + done.updated }));
      void navigate('/device/list');
    } catch (e) {
      // The link was spent or revoked while the page was open: say so as the page would on opening it.
      if (e instanceof ApiError && (e.code === 10211 || e.code === 10212)) void preview.refetch();
      else if (e instanceof ApiError && e.httpStatus !== 403) toast('error', e.message);
    }
  };

  return (
    <PageContainer>
      <Card bordered={false}>
        <Result
          status="info"
          title={t('share.landing.title', { owner: p.owner_username, count: p.devices.length })}
          subTitle={t('share.landing.sub')}
          data-testid="share-landing"
          extra={
            <Space>
              <Button onClick={toDevices}>{t('share.landing.decline')}</Button>
              <Button type="primary" loading={accept.isPending} onClick={() => void onAccept()}>
                {t('share.landing.accept')}
              </Button>
            </Space>
          }
        />
        <div style={{ maxWidth: 720, margin: '0 auto' }}>
          <Descriptions
            column={3}
            layout="vertical"
            border
            data={[
              { label: t('share.landing.owner'), value: p.owner_username },
              { label: t('share.landing.right'), value: <ShareRightTag right={p.right} /> },
              { label: t('share.landing.expires'), value: <ExpiryText iso={p.expires_at} /> },
            ]}
          />
          <Typography.Title heading={6} style={{ margin: '20px 0 12px' }}>
            {t('share.landing.devices')}
          </Typography.Title>
          <Table
            rowKey="sn"
            size="small"
            data={p.devices}
            pagination={p.devices.length > 10 ? { pageSize: 10, size: 'small' } : false}
            columns={[
              {
                title: t('share.filter.sn'),
                dataIndex: 'sn',
                render: (v: string) => <span className={styles.mono}>{v}</span>,
              },
              {
                title: t('share.landing.name'),
                dataIndex: 'name',
                render: (v: string) => <Nowrap>{v || '-'}</Nowrap>,
              },
            ]}
          />
        </div>
      </Card>
    </PageContainer>
  );
}
