import { otaTaskCreateBody } from '@cellhub/contract/ota';
import { describe, expect, it } from 'vitest';
import {
  buildCreateBody,
  FORM_DEFAULTS,
  localToIso,
  previewBody,
  type CreateFormValues,
} from './create-body';

const values = (over: Partial<CreateFormValues> = {}): CreateFormValues =>
  ({
    ...FORM_DEFAULTS,
    name: '  canary 2.1.0 ',
    product_key: 'pk01abcd',
    version_id: 7,
    ...over,
  }) as CreateFormValues;

describe('create body', () => {
  it('turns the form defaults into a body the contract accepts with its own defaults', () => {
    const body = buildCreateBody(values(), [], []);
    const parsed = otaTaskCreateBody.parse(body);
    expect(parsed).toMatchObject({
      name: 'canary 2.1.0',
      description: '',
      targets: { type: 'all' },
      plan_time: null,
      window_end: null,
    });
    expect(parsed.policy).toEqual(otaTaskCreateBody.parse({ ...body, policy: undefined }).policy);
  });

  it('sends no threshold when failures should never pause, and the filter conditions that were given', () => {
    const body = buildCreateBody(
      values({
        failure_enabled: false,
        target_type: 'filter',
        filter_keyword: ' pump ',
        filter_online: '0',
        filter_fw_version: '',
      }),
      [],
      [],
    );
    expect(body.policy?.failure_threshold).toBeNull();
    expect(body.targets).toEqual({ type: 'filter', keyword: 'pump', online: 0 });
    expect(otaTaskCreateBody.safeParse(body).success).toBe(true);
  });

  it('takes the uploaded list or the picked devices for those target types', () => {
    expect(buildCreateBody(values({ target_type: 'list' }), ['A', 'B'], ['C']).targets).toEqual({
      type: 'list',
      sns: ['A', 'B'],
    });
    const picked = buildCreateBody(values({ target_type: 'pick', skip_same_version: false }), ['A'], ['C']);
    expect(picked.targets).toEqual({ type: 'pick', sns: ['C'] });
    expect(previewBody(picked)).toEqual({
      product_key: 'pk01abcd',
      version_id: 7,
      targets: { type: 'pick', sns: ['C'] },
      skip_same_version: false,
    });
  });

  it('sends picker times as ISO instants, and the contract refuses a window that ends before the plan', () => {
    expect(localToIso('')).toBeNull();
    expect(localToIso('2030-05-01 08:30:00')).toBe(new Date(2030, 4, 1, 8, 30, 0).toISOString());
    const body = buildCreateBody(
      values({ plan_time: '2030-05-01 08:30:00', window_end: '2030-05-01 08:00:00' }),
      [],
      [],
    );
    const r = otaTaskCreateBody.safeParse(body);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['window_end']);
  });
});
