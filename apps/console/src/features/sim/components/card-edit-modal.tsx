import {
  SIM_CARD_STATUSES,
  type SimCardItem,
  type SimCardStatus,
  type SimCardUpdateBody,
} from '@cellhub/contract/sim';
import { Form, Input, Message, Modal, Select } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { usePackageList, useProviderOptions, useUpdateCard } from '../api';
import locale from '../locale';
import { ruleText } from '../sim-format';
import { AccountSelect } from './account-select';

interface Values {
  phone?: string;
  imsi?: string;
  provider_id: number;
  package_id?: number;
  uid?: number;
  status?: SimCardStatus;
  remark?: string;
}

/**
 * Admin: a card's numbers, provider, package, assigned user and (manual providers) status. Changing the package
 * here charges nobody and does not restart the validity; orders do that.
 */
export function CardEditModal({ card, onClose }: { card?: SimCardItem; onClose: () => void }) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const update = useUpdateCard();
  const providers = useProviderOptions(!!card);
  const packages = usePackageList({ current: 1, per_page: 100, operator: card?.operator });
  const providerId = Form.useWatch('provider_id', form) as number | undefined;
  const manual = providers.data?.data.find((p) => p.id === providerId)?.kind === 'manual';

  useEffect(() => {
    if (card) {
      form.setFieldsValue({
        phone: card.phone,
        imsi: card.imsi,
        provider_id: card.provider_id,
        package_id: card.package_id ?? undefined,
        uid: card.uid ?? undefined,
        status: card.status,
        remark: card.remark,
      });
    }
  }, [card, form]);

  const submit = async () => {
    if (!card) return;
    const v = await form.validate();
    const body: SimCardUpdateBody = {
      phone: v.phone?.trim() ?? '',
      imsi: v.imsi?.trim() ?? '',
      provider_id: v.provider_id,
      package_id: v.package_id ?? null,
      uid: v.uid ?? null,
      remark: v.remark?.trim() ?? '',
      ...(manual && v.status && v.status !== card.status ? { status: v.status } : {}),
    };
    try {
      await update.mutateAsync({ iccid: card.iccid, body });
      Message.success(t('sim.saved'));
      onClose();
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (e.code === 10113 && Array.isArray(e.details)) {
        for (const d of e.details as { field: string; message: string }[]) {
          form.setFields({ [d.field]: { error: { message: ruleText(t, d.message) } } });
        }
      } else if (e.httpStatus !== 403) Message.error(e.message);
    }
  };

  return (
    <Modal
      title={card ? t('sim.stock.editTitle', { iccid: card.iccid }) : ''}
      visible={!!card}
      onCancel={onClose}
      onOk={() => void submit()}
      confirmLoading={update.isPending}
      unmountOnExit
    >
      <Form<Values> form={form} layout="vertical">
        <Form.Item
          label={t('sim.field.phone')}
          field="phone"
          rules={[{ match: /^(\+?\d{5,20})?$/, message: t('sim.rule.msisdn_rule') }]}
        >
          <Input maxLength={21} />
        </Form.Item>
        <Form.Item
          label={t('sim.field.imsi')}
          field="imsi"
          rules={[{ match: /^(\d{6,15})?$/, message: t('sim.rule.imsi_rule') }]}
        >
          <Input maxLength={15} />
        </Form.Item>
        <Form.Item label={t('sim.field.provider')} field="provider_id" rules={[{ required: true }]}>
          <Select
            loading={providers.isLoading}
            options={(providers.data?.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
          />
        </Form.Item>
        <Form.Item label={t('sim.field.package')} field="package_id" extra={t('sim.stock.packageHint')}>
          <Select
            allowClear
            placeholder={t('sim.noPackage')}
            options={(packages.data?.data ?? []).map((p) => ({
              value: p.id,
              label: `${p.name} (${p.code})`,
            }))}
          />
        </Form.Item>
        <Form.Item label={t('sim.field.assigned')} field="uid" extra={t('sim.stock.assignHint')}>
          <AccountSelect placeholder={t('sim.stock.unassigned')} knownLabel={card?.username} />
        </Form.Item>
        {manual && (
          <Form.Item label={t('sim.field.status')} field="status" extra={t('sim.stock.statusHint')}>
            <Select options={SIM_CARD_STATUSES.map((s) => ({ value: s, label: t(`sim.status.${s}`) }))} />
          </Form.Item>
        )}
        <Form.Item label={t('sim.field.remark')} field="remark">
          <Input.TextArea maxLength={200} showWordLimit />
        </Form.Item>
      </Form>
    </Modal>
  );
}
