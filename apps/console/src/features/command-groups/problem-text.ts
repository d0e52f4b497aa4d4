import type { CommandProblem } from '@cellhub/contract/command-groups';

type Translate = (key: string, vars?: Record<string, string | number>) => string;

/**
 * The text of a definition or value problem (contract reasons such as `out_of_range`, `unknown_param:addr` or a
 * `sample_` one found while rendering with sample values). Unknown reasons read as a plain "invalid value".
 */
export function problemText(t: Translate, reason: string): string {
  const plain = reason.replace(/^sample_/, '');
  const [head, name] = plain.split(':', 2);
  const key = `problem.${head}`;
  const text = t(key, name === undefined ? undefined : { name });
  return text === key ? t('problem.other') : text;
}

/** The problems of one form field (`data`, `params.<name>`, `reply_pattern`), joined. */
export function problemsOf(t: Translate, problems: CommandProblem[], field: string): string | undefined {
  const mine = problems.filter((p) => p.field === field);
  return mine.length === 0 ? undefined : mine.map((p) => problemText(t, p.reason)).join('; ');
}
