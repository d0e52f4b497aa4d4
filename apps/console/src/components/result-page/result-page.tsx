/**
 * The one answer of every detail and edit page whose record cannot be shown: "not found" (a missing id, or another
 * user's row, which the server answers alike), "not allowed" (10108), or "could not load" with a retry, each with
 * the way back to its list. The record's request is silent, so this page is the only thing the user is told.
 */
import { Button, Card, Result, Space, Spin } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../../lib/i18n';
import { ApiError } from '../../lib/request';
import { PageContainer } from '../page-container';
import locale from './locale';

export type LoadProblem = 'notFound' | 'forbidden' | 'failed';

/**
 * What a failed load means: 10108 is "not allowed"; any other answered refusal (10107, 10117, a bad id ...) means
 * the record is not there for this user; no answer or a server failure is worth a retry.
 */
export function loadProblem(error: unknown): LoadProblem {
  if (!(error instanceof ApiError)) return 'failed';
  if (error.code === 10108) return 'forbidden';
  return error.answered ? 'notFound' : 'failed';
}

export interface ResultPageProps {
  /** The failed load; `undefined` with `problem` for a page that knows without asking (an id that is no number). */
  error?: unknown;
  problem?: LoadProblem;
  /** Where "back" goes (the list), and its label when not "Back to the list". */
  back: string;
  backLabel?: ReactNode;
  /** The page's own title for a missing record (e.g. "Device not found"). */
  notFoundTitle?: ReactNode;
  /** What was asked for (the id or serial number), shown under the title. */
  subject?: ReactNode;
  onRetry?: () => void;
}

export function ResultPage({
  error,
  problem: given,
  back,
  backLabel,
  notFoundTitle,
  subject,
  onRetry,
}: ResultPageProps) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const problem = given ?? loadProblem(error);
  const status = problem === 'notFound' ? '404' : problem === 'forbidden' ? '403' : 'error';
  const title =
    problem === 'notFound'
      ? (notFoundTitle ?? t('resultPage.notFound'))
      : t(problem === 'forbidden' ? 'resultPage.forbidden' : 'resultPage.failed');
  const hint =
    problem === 'notFound'
      ? t('resultPage.notFound.hint')
      : problem === 'forbidden'
        ? t('resultPage.forbidden.hint')
        : error instanceof Error
          ? error.message
          : undefined;
  return (
    <PageContainer>
      <Card bordered={false}>
        <Result
          data-testid="result-page"
          data-problem={problem}
          status={status}
          title={title}
          subTitle={
            <>
              {subject !== undefined && subject !== '' && <div>{subject}</div>}
              {hint && <div>{hint}</div>}
            </>
          }
          extra={
            <Space>
              <Button onClick={() => void navigate(back)}>{backLabel ?? t('resultPage.back')}</Button>
              {problem === 'failed' && onRetry && (
                <Button type="primary" onClick={onRetry}>
                  {t('resultPage.retry')}
                </Button>
              )}
            </Space>
          }
        />
      </Card>
    </PageContainer>
  );
}

/** A record the page has asked for: TanStack Query's fields that matter here. */
export interface RecordLoad {
  isLoading: boolean;
  isError: boolean;
  error: unknown;
  data?: unknown;
  refetch?: () => unknown;
}

/**
 * What a detail or edit page shows instead of its content: a spinner while the record loads, the result page when
 * it failed or the id is no id; null once the record is here (or there is nothing to load: a create page).
 */
export function recordState(
  load: RecordLoad,
  options: Omit<ResultPageProps, 'error' | 'problem' | 'onRetry'> & { badId?: boolean; skip?: boolean },
): ReactNode {
  const { badId, skip, ...page } = options;
  if (skip) return null;
  if (badId) return <ResultPage problem="notFound" {...page} />;
  if (load.isError)
    return (
      <ResultPage
        error={load.error}
        onRetry={load.refetch ? () => void load.refetch!() : undefined}
        {...page}
      />
    );
  if (load.isLoading || load.data === undefined) return <Spin style={{ display: 'block', margin: 48 }} />;
  return null;
}

/** Whether a path parameter read with Number() names a record at all (ids are positive integers). */
export const isRecordId = (id: number | undefined): id is number => Number.isInteger(id) && id! > 0;
