import {
  MAX_SIM_IMPORT_BYTES,
  MAX_SIM_IMPORT_ROWS,
  SIM_IMPORT_COLUMNS,
  type SimCardBatchResult,
  type SimUsageImportResult,
} from '@cellhub/contract/sim';
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Dropdown,
  Menu,
  Progress,
  Result,
  Space,
  Statistic,
  Table,
  Tabs,
  Upload,
} from '@arco-design/web-react';
import { IconDelete, IconDownload, IconFile } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale, type Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { saveBlob, useBatchImport, usePackageList, useProviderOptions, useUsageImport } from '../api';
import {
  templateCsv,
  templateRows,
  templateXlsx,
  USAGE_IMPORT_COLUMNS,
  type TemplateKind,
} from '../import-template';
import { CreatedIccids, FailuresTable } from '../components/import-result';
import locale from '../locale';
import styles from './sim.module.css';

const ACCEPT = '.csv,.xlsx';

function fileProblem(file: File, t: Translate): string | undefined {
  if (!/\.(csv|xlsx)$/i.test(file.name)) return t('sim.batch.wrongType');
  if (file.size > MAX_SIM_IMPORT_BYTES)
    return t('sim.batch.tooLarge', { mb: MAX_SIM_IMPORT_BYTES / 1024 / 1024 });
  return undefined;
}

/** What the server said about the file itself (size, type, unreadable or no iccid column). */
function fileRefusal(e: ApiError): string {
  const d = Array.isArray(e.details) ? (e.details as { field?: string; message?: string }[]) : [];
  const why = d
    .map((x) => x.message)
    .filter(Boolean)
    .join('; ');
  return why ? `${e.message}: ${why}` : e.message;
}

function TemplateButton({ kind }: { kind: TemplateKind }) {
  const t = useLocale(locale);
  const providers = useProviderOptions(kind === 'cards');
  const packages = usePackageList({ current: 1, per_page: 1 });
  const rows = () =>
    templateRows(kind, {
      provider: providers.data?.data[0]?.name ?? 'provider name',
      packageCode: packages.data?.data[0]?.code ?? '',
    });
  const name = kind === 'cards' ? 'sim-cards-template' : 'sim-usage-template';
  return (
    <Dropdown
      droplist={
        <Menu
          onClickMenuItem={(k) =>
            void (k === 'csv'
              ? Promise.resolve(saveBlob(templateCsv(rows()), `${name}.csv`))
              : templateXlsx(rows()).then((b) => saveBlob(b, `${name}.xlsx`)))
          }
        >
          <Menu.Item key="csv">{t('sim.batch.template.csv')}</Menu.Item>
          <Menu.Item key="xlsx">{t('sim.batch.template.xlsx')}</Menu.Item>
        </Menu>
      }
    >
      <Button icon={<IconDownload />} data-testid={`sim-template-${kind}`}>
        {t('sim.batch.template')}
      </Button>
    </Dropdown>
  );
}

/** The drag area with the chosen file, its checks and the upload progress. */
function FilePicker({
  file,
  setFile,
  error,
  setError,
  progress,
}: {
  file?: File;
  setFile: (f?: File) => void;
  error?: string;
  setError: (e?: string) => void;
  progress?: number;
}) {
  const t = useLocale(locale);
  return (
    <div>
      <Upload
        drag
        autoUpload={false}
        showUploadList={false}
        fileList={[]}
        accept={ACCEPT}
        onChange={(_, f) => {
          const picked = f.originFile;
          if (!picked) return;
          const problem = fileProblem(picked, t);
          setError(problem);
          setFile(problem ? undefined : picked);
        }}
        tip={t('sim.batch.dropTip', { mb: MAX_SIM_IMPORT_BYTES / 1024 / 1024, rows: MAX_SIM_IMPORT_ROWS })}
      />
      {file && (
        <div className={styles.fileLine} data-testid="sim-batch-file">
          <IconFile />
          <span>{file.name}</span>
          <span className={styles.muted}>{(file.size / 1024).toFixed(1)} KB</span>
          <Button
            type="text"
            size="mini"
            icon={<IconDelete />}
            aria-label={t('sim.delete')}
            onClick={() => setFile(undefined)}
          />
        </div>
      )}
      {progress !== undefined && <Progress percent={progress} style={{ marginTop: 8 }} />}
      {error && (
        <div className={styles.uploadError} role="alert" data-testid="sim-batch-error">
          {error}
        </div>
      )}
    </div>
  );
}

function BatchResult({ result, onAgain }: { result: SimCardBatchResult; onAgain: () => void }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  return (
    <div data-testid="sim-batch-result">
      <Result
        status={result.failed === 0 ? 'success' : result.created === 0 ? 'error' : 'warning'}
        title={t('sim.batch.resultTitle', { created: result.created, failed: result.failed })}
        subTitle={t('sim.batch.resultSub', { file: result.filename, total: result.total })}
        extra={
          <Space>
            <Button type="primary" onClick={onAgain}>
              {t('sim.batch.again')}
            </Button>
            <Button onClick={() => void navigate('/card-admin/card')}>{t('sim.batch.toStock')}</Button>
            <Button onClick={() => void navigate(`/card-admin/card/log?id=${result.id}`)}>
              {t('sim.batch.toLog')}
            </Button>
          </Space>
        }
      />
      <Space size={48} style={{ margin: '0 0 16px 8px' }}>
        <Statistic title={t('sim.batch.total')} value={result.total} />
        <Statistic
          title={t('sim.batch.created')}
          value={result.created}
          styleValue={{ color: 'rgb(var(--success-6))' }}
        />
        <Statistic
          title={t('sim.batch.failed')}
          value={result.failed}
          styleValue={{ color: result.failed ? 'rgb(var(--danger-6))' : undefined }}
        />
      </Space>
      {result.failures.length > 0 && (
        <>
          <div className={styles.sectionTitle}>{t('sim.batch.failures')}</div>
          <FailuresTable failures={result.failures} />
        </>
      )}
      <CreatedIccids iccids={result.iccids} />
    </div>
  );
}

function CardsImport() {
  const t = useLocale(locale);
  const batch = useBatchImport();
  const [file, setFile] = useState<File>();
  const [error, setError] = useState<string>();
  const [progress, setProgress] = useState<number>();
  const [result, setResult] = useState<SimCardBatchResult>();

  if (result) {
    return (
      <BatchResult
        result={result}
        onAgain={() => {
          setResult(undefined);
          setFile(undefined);
        }}
      />
    );
  }

  const upload = async () => {
    if (!file) {
      setError(t('sim.batch.pickFile'));
      return;
    }
    setError(undefined);
    setProgress(0);
    try {
      setResult(
        await batch.mutateAsync({
          file,
          onProgress: (loaded, total) => setProgress(total ? Math.round((loaded / total) * 100) : undefined),
        }),
      );
    } catch (e) {
      if (e instanceof ApiError && e.httpStatus !== 403) setError(fileRefusal(e));
    } finally {
      setProgress(undefined);
    }
  };

  return (
    <Space direction="vertical" size={16} style={{ width: '100%', maxWidth: 820 }}>
      <Alert
        type="info"
        title={t('sim.batch.howTitle')}
        content={
          <Space direction="vertical" size={2}>
            <span>{t('sim.batch.how1', { columns: SIM_IMPORT_COLUMNS.join(', ') })}</span>
            <span>{t('sim.batch.how2')}</span>
            <span>{t('sim.batch.how3')}</span>
          </Space>
        }
      />
      <Descriptions
        column={1}
        size="small"
        labelStyle={{ width: 110, color: 'var(--color-text-3)' }}
        data={SIM_IMPORT_COLUMNS.map((c) => ({ label: c, value: t(`sim.batch.col.${c}`) }))}
      />
      <FilePicker file={file} setFile={setFile} error={error} setError={setError} progress={progress} />
      <Space>
        <Button type="primary" loading={batch.isPending} onClick={() => void upload()}>
          {t('sim.batch.upload')}
        </Button>
        <TemplateButton kind="cards" />
      </Space>
    </Space>
  );
}

function UsageImport() {
  const t = useLocale(locale);
  const run = useUsageImport();
  const [file, setFile] = useState<File>();
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<SimUsageImportResult>();

  const upload = async () => {
    if (!file) {
      setError(t('sim.batch.pickFile'));
      return;
    }
    setError(undefined);
    try {
      setResult(await run.mutateAsync(file));
      setFile(undefined);
    } catch (e) {
      if (e instanceof ApiError && e.httpStatus !== 403) setError(fileRefusal(e));
    }
  };

  return (
    <Space direction="vertical" size={16} style={{ width: '100%', maxWidth: 820 }}>
      <Alert
        type="info"
        title={t('sim.usageImport.title')}
        content={t('sim.usageImport.how', { columns: USAGE_IMPORT_COLUMNS.join(', ') })}
      />
      <FilePicker file={file} setFile={setFile} error={error} setError={setError} />
      <Space>
        <Button type="primary" loading={run.isPending} onClick={() => void upload()}>
          {t('sim.batch.upload')}
        </Button>
        <TemplateButton kind="usage" />
      </Space>
      {result && (
        <div data-testid="sim-usage-result">
          <Alert
            type={result.failures.length ? 'warning' : 'success'}
            content={t('sim.usageImport.result', {
              imported: result.imported,
              total: result.total,
              failed: result.failures.length,
            })}
          />
          {result.failures.length > 0 && (
            <Table
              size="small"
              style={{ marginTop: 12 }}
              rowKey={(r) => `${r.row}-${r.iccid}`}
              data={result.failures}
              pagination={false}
              columns={[
                { title: t('sim.col.row'), dataIndex: 'row', width: 80 },
                { title: t('sim.col.iccid'), dataIndex: 'iccid' },
                { title: t('sim.col.detail'), dataIndex: 'message' },
              ]}
            />
          )}
        </div>
      )}
    </Space>
  );
}

/** /card-admin/card/batch: cards from a CSV or Excel file (with a template and the result row by row); daily usage of manual cards. */
export default function StockBatchPage() {
  const t = useLocale(locale);
  const [search, setSearch] = useSearchParams();
  const tab = search.get('tab') === 'usage' ? 'usage' : 'cards';
  return (
    <PageContainer>
      <Card
        bordered={false}
        title={t('sim.batch.title')}
        extra={
          <Link to="/card-admin/card/log" className={styles.link}>
            {t('sim.stock.log')}
          </Link>
        }
      >
        <Tabs
          activeTab={tab}
          headerPadding={false}
          onChange={(k) => setSearch(k === 'usage' ? { tab: 'usage' } : {}, { replace: true })}
        >
          <Tabs.TabPane key="cards" title={t('sim.batch.tab.cards')}>
            <CardsImport />
          </Tabs.TabPane>
          <Tabs.TabPane key="usage" title={t('sim.usageImport.title')}>
            <UsageImport />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
