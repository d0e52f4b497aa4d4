import { iccidProblem, SIM_OPERATORS, type SimCardCreateBody, type SimOperator } from '@cellhub/contract/sim';
import { Alert, Button, Card, Form, Grid, Input, Message, Select, Space } from '@arco-design/web-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCreateCard, usePackageList, useProviderOptions } from '../api';
import { AccountSelect } from '../components/account-select';
import locale from '../locale';
import { ruleText } from '../sim-format';
import styles from './sim.module.css';

const { Row, Col } = Grid;

interface Values {
  iccid: string;
  phone?: string;
  imsi?: string;
  provider_id?: number;
  operator?: SimOperator;
  package_id?: number;
  uid?: number;
  remark?: string;
}

/** /card-admin/card/create: one card by form (a `single` row of the creation log). */
export default function StockCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const providers = useProviderOptions();
  const operator = Form.useWatch('operator', form) as SimOperator | undefined;
  const packages = usePackageList({ current: 1, per_page: 100, operator });
  const create = useCreateCard();
  const [created, setCreated] = useState<string>();

  const submit = async (again: boolean) => {
    const v = await form.validate();
    const body: SimCardCreateBody = {
      iccid: v.iccid.trim(),
      phone: v.phone?.trim() ?? '',
      imsi: v.imsi?.trim() ?? '',
      operator: v.operator!,
      provider_id: v.provider_id!,
      package_id: v.package_id ?? null,
      uid: v.uid ?? null,
      remark: v.remark?.trim() ?? '',
    };
    try {
      const card = await create.mutateAsync(body);
      Message.success(t('sim.stock.created', { iccid: card.iccid }));
      if (again) {
        setCreated(card.iccid);
        form.setFieldsValue({ iccid: '', phone: '', imsi: '' });
      } else void navigate('/card-admin/card');
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (e.code === 60006) form.setFields({ iccid: { error: { message: e.message } } });
      else if (e.code === 10113 && Array.isArray(e.details)) {
        for (const d of e.details as { field: string; message: string }[]) {
          form.setFields({ [d.field]: { error: { message: ruleText(t, d.message) } } });
        }
      } else if (e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const providerList = providers.data?.data ?? [];

  return (
    <PageContainer>
      <Card bordered={false} title={t('sim.stock.createTitle')} className={styles.formCard}>
        {providers.data && providerList.length === 0 && (
          <Alert
            type="warning"
            style={{ marginBottom: 16 }}
            content={
              <span>
                {t('sim.stock.noProvider')}{' '}
                <Link to="/card-admin/provider/create">{t('sim.provider.create')}</Link>
              </span>
            }
          />
        )}
        {created && (
          <Alert
            type="success"
            style={{ marginBottom: 16 }}
            content={t('sim.stock.createdAgain', { iccid: created })}
          />
        )}
        <Form<Values> form={form} layout="vertical" onSubmit={() => void submit(false)} scrollToFirstError>
          <Row gutter={24}>
            <Col span={12}>
              <Form.Item
                label={t('sim.field.iccid')}
                field="iccid"
                extra={t('sim.stock.iccid.hint')}
                rules={[
                  { required: true, message: t('sim.stock.iccid.required') },
                  {
                    validator: (v: string | undefined, cb) => {
                      const problem = v ? iccidProblem(v.trim()) : null;
                      cb(problem ? t(`sim.rule.${problem}`) : undefined);
                    },
                  },
                ]}
              >
                <Input maxLength={20} className={styles.mono} placeholder="8986…" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.field.phone')}
                field="phone"
                rules={[{ match: /^(\+?\d{5,20})?$/, message: t('sim.rule.msisdn_rule') }]}
              >
                <Input maxLength={21} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.field.imsi')}
                field="imsi"
                rules={[{ match: /^(\d{6,15})?$/, message: t('sim.rule.imsi_rule') }]}
              >
                <Input maxLength={15} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.field.provider')}
                field="provider_id"
                rules={[{ required: true, message: t('sim.stock.provider.required') }]}
              >
                <Select
                  loading={providers.isLoading}
                  placeholder={t('sim.stock.provider.placeholder')}
                  onChange={(id: number) => {
                    const p = providerList.find((x) => x.id === id);
                    // A provider is one operator account: its operator is the card's unless told otherwise.
                    if (p) form.setFieldsValue({ operator: p.operator, package_id: undefined });
                  }}
                  options={providerList.map((p) => ({
                    value: p.id,
                    label: `${p.name} · ${t(`sim.provider.kind.${p.kind}`)}`,
                  }))}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.field.operator')}
                field="operator"
                rules={[{ required: true, message: t('sim.stock.operator.required') }]}
              >
                <Select
                  onChange={() => form.setFieldsValue({ package_id: undefined })}
                  options={SIM_OPERATORS.map((o) => ({ value: o, label: t(`sim.operator.${o}`) }))}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                label={t('sim.field.package')}
                field="package_id"
                extra={t('sim.stock.package.hint')}
              >
                <Select
                  allowClear
                  disabled={!operator}
                  placeholder={operator ? t('sim.noPackage') : t('sim.stock.package.pickOperator')}
                  options={(packages.data?.data ?? []).map((p) => ({
                    value: p.id,
                    label: `${p.name} (${p.code})`,
                  }))}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={t('sim.field.assigned')} field="uid" extra={t('sim.stock.assignHint')}>
                <AccountSelect placeholder={t('sim.stock.unassigned')} />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item label={t('sim.field.remark')} field="remark">
                <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
              </Form.Item>
            </Col>
          </Row>
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={create.isPending}>
              {t('sim.save')}
            </Button>
            <Button loading={create.isPending} onClick={() => void submit(true)}>
              {t('sim.stock.saveAndNext')}
            </Button>
            <Button onClick={() => void navigate('/card-admin/card')}>{t('sim.cancel')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
