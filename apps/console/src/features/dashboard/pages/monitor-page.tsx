import { Alert, Badge, Button, Card, Descriptions, Grid } from '@arco-design/web-react';
import { IconRefresh } from '@arco-design/web-react/icon';
import { useQuery } from '@tanstack/react-query';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError, http } from '../../../lib/request';
import locale from '../locale';

interface Health {
  db: string;
  mqtt: string;
}

/**
 * The template's monitor screen, kept small: instead of a sample live studio it shows what can honestly be
 * watched today, the health of the server's database and broker (GET /api/health).
 */
export default function MonitorPage() {
  const t = useLocale(locale);
  const health = useQuery({
    queryKey: ['health'],
    queryFn: async () => {
      try {
        return await http.get<Health>('/api/health', { silent: true });
      } catch (e) {
        // 503 carries the failing part in its details; anything else means the API itself is unreachable.
        if (e instanceof ApiError && e.details && typeof e.details === 'object')
          return e.details as Partial<Health>;
        throw e;
      }
    },
    refetchInterval: 10_000,
    retry: false,
  });

  const state = (v: string | undefined) =>
    health.isPending ? (
      <Badge status="processing" text={t('monitor.status.checking')} />
    ) : v === 'ok' ? (
      <Badge status="success" text={t('monitor.status.ok')} />
    ) : (
      <Badge status="error" text={t('monitor.status.down')} />
    );

  return (
    <PageContainer>
      <Alert type="info" content={t('monitor.demo')} style={{ marginBottom: 16 }} />
      <Grid.Row gutter={16}>
        <Grid.Col span={12}>
          <Card
            bordered={false}
            title={t('monitor.status')}
            extra={
              <Button size="small" icon={<IconRefresh />} onClick={() => void health.refetch()}>
                {t('monitor.refresh')}
              </Button>
            }
          >
            <Descriptions
              column={1}
              labelStyle={{ width: 160 }}
              data={[
                {
                  label: t('monitor.status.web'),
                  value: <Badge status="success" text={t('monitor.status.ok')} />,
                },
                { label: t('monitor.status.api'), value: state(health.isError ? 'down' : 'ok') },
                { label: t('monitor.status.db'), value: state(health.data?.db) },
                { label: t('monitor.status.mqtt'), value: state(health.data?.mqtt) },
              ]}
            />
          </Card>
        </Grid.Col>
      </Grid.Row>
    </PageContainer>
  );
}
