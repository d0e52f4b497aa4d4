import type { UserCommandRunSummary } from '@cellhub/contract/user-commands';
import {
  Button,
  Card,
  Descriptions,
  Message,
  Spin,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconEdit, IconSend } from '@arco-design/web-react/icon';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { LiveRunCard, RunHistoryCard, TargetsCard } from '../../../components/run-cards';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeviceEvents } from '../../../lib/realtime';
import { useRefreshRun, useRun, useRunList, useSendUserCommand, useUserCommand } from '../api';
import RunResults from '../components/run-results';
import locale from '../locale';
import { describeTally, tallyRun } from '../run-tally';
import styles from '../../../components/run-page.module.css';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

export default function UserCommandDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useUserCommand(isRecordId(id) ? id : undefined);
  const { data: cmd, isLoading } = load;
  const [targets, setTargets] = useState<string[]>([]);
  const [page, setPage] = useState(1);
  const { data: runs } = useRunList(id, page, !!cmd);
  const [chosenRun, setChosenRun] = useState<number | undefined>();
  const runId = chosenRun ?? runs?.data[0]?.id;
  const { data: run } = useRun(id, runId);
  const send = useSendUserCommand(id);
  const refreshRun = useRefreshRun();

  // Replies and timeouts arrive as device.command events; the run is read again so the table shows the server's view.
  const commandIds = useMemo(
    () => new Set((run?.results ?? []).map((r) => r.command_id).filter((x): x is string => x !== null)),
    [run],
  );
  const waiting = run?.results.some((r) => r.status === 'sent') ?? false;
  const live = useDeviceEvents(
    waiting && run ? { sns: run.results.map((r) => r.sn), types: ['device.command'] } : null,
    (event) => {
      if (event.type === 'device.command' && run && commandIds.has(String(event.id)))
        void refreshRun(id, run.id);
    },
  );

  // Whatever happened before the subscription was in place is read once it is.
  const runKey = run?.id;
  useEffect(() => {
    if (live === 'open' && runKey !== undefined) void refreshRun(id, runKey);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live, runKey, id]);

  const submit = async () => {
    if (targets.length === 0) {
      Message.warning(t('userCommand.detail.noTargets'));
      return;
    }
    try {
      const result = await send.mutateAsync(targets);
      setChosenRun(result.id);
      setPage(1);
      // Said from each device's real state: a reply that came during the request is a success, not "not sent".
      const tally = tallyRun(result.results);
      Message[tally.tone](describeTally(tally, t));
    } catch {
      // The request layer has shown why.
    }
  };

  const runColumns: TableColumnProps<UserCommandRunSummary>[] = [
    {
      title: t('userCommand.detail.runAt'),
      dataIndex: 'createdat',
      render: (v: string, row) => (
        <Button type="text" size="mini" onClick={() => setChosenRun(row.id)}>
          {formatTime(v)}
          {row.id === runId && (
            <Tag size="small" color="arcoblue" style={{ marginLeft: 8 }}>
              ✓
            </Tag>
          )}
        </Button>
      ),
    },
    {
      title: t('userCommand.col.data'),
      dataIndex: 'data',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    { title: t('userCommand.detail.runDevices'), dataIndex: 'total' },
  ];

  const state = recordState(load, { badId: !isRecordId(id), back: '/device/user-command/list' });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={t('userCommand.detail.info')}
        extra={
          <Button icon={<IconEdit />} onClick={() => void navigate(`/device/user-command/edit/${id}`)}>
            {t('common.edit')}
          </Button>
        }
      >
        <Spin loading={isLoading} style={{ display: 'block' }}>
          {cmd && (
            <Descriptions
              column={2}
              data={[
                { label: t('userCommand.col.name'), value: cmd.name },
                {
                  label: t('userCommand.col.type'),
                  value: <Tag size="small">{t(`userCommand.type.${cmd.type}`)}</Tag>,
                },
                { label: t('userCommand.col.data'), value: <span className={styles.mono}>{cmd.data}</span> },
                { label: t('userCommand.col.description'), value: cmd.description || '-' },
                { label: t('userCommand.col.runs'), value: cmd.runs },
                { label: t('userCommand.col.updated'), value: formatTime(cmd.updatedat) },
              ]}
            />
          )}
        </Spin>
      </Card>
      <TargetsCard
        title={t('userCommand.detail.sendTitle')}
        targets={targets}
        onTargets={setTargets}
        placeholder={t('userCommand.detail.targets.placeholder')}
        onlineText={t('userCommand.online')}
        offlineText={t('userCommand.offline')}
        action={{
          label: t('userCommand.detail.sendButton'),
          icon: <IconSend />,
          loading: send.isPending,
          onRun: () => void submit(),
        }}
      />
      <LiveRunCard
        title={t('userCommand.detail.results')}
        following={waiting}
        live={live === 'open'}
        liveText={t('userCommand.detail.live')}
      >
        <RunResults run={run} />
      </LiveRunCard>
      <RunHistoryCard<UserCommandRunSummary>
        title={t('userCommand.detail.history')}
        columns={runColumns}
        data={runs?.data ?? []}
        total={runs?.total ?? 0}
        page={page}
        onPage={setPage}
      />
    </PageContainer>
  );
}
