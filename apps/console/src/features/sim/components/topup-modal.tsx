import { MAX_AMOUNT_FEN, type BalanceAccountItem } from '@cellhub/contract/sim';
import { Alert, Form, Input, InputNumber, Message, Modal } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useTopup } from '../api';
import locale from '../locale';
import { fenFromYuan, yuan } from '../sim-format';
import { AccountSelect } from './account-select';

interface Values {
  uid?: number;
  amount?: number;
  note?: string;
}

/**
 * Admin: adds money to a user's balance with a note (ledger kind `topup`, audited). Two steps: the form, then a
 * confirmation naming the user, the amount and the balance it makes.
 */
export function TopupModal({
  visible,
  onClose,
  uid,
  username,
  balanceFen,
}: {
  visible: boolean;
  onClose: () => void;
  /** Preset when opened from a user's row; otherwise the admin picks the user. */
  uid?: number;
  username?: string;
  balanceFen?: number;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const topup = useTopup();
  const [confirming, setConfirming] = useState<{ uid: number; fen: number; note: string }>();
  const [picked, setPicked] = useState<BalanceAccountItem>();
  const who = uid === undefined ? picked?.username : username;
  const before = uid === undefined ? picked?.balance_fen : balanceFen;

  useEffect(() => {
    if (visible) {
      form.resetFields();
      form.setFieldsValue({ uid });
      setConfirming(undefined);
      setPicked(undefined);
    }
  }, [visible, uid, form]);

  const next = async () => {
    const v = await form.validate();
    setConfirming({ uid: v.uid!, fen: fenFromYuan(v.amount!), note: v.note?.trim() ?? '' });
  };

  const submit = async () => {
    if (!confirming) return;
    try {
      const row = await topup.mutateAsync({
        uid: confirming.uid,
        amount_fen: confirming.fen,
        note: confirming.note,
      });
      Message.success(t('sim.topup.done', { balance: yuan(row.balance_after_fen) }));
      onClose();
    } catch {
      // The request layer has shown why.
      setConfirming(undefined);
    }
  };

  return (
    <Modal
      title={t('sim.topup.title')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void (confirming ? submit() : next())}
      okText={confirming ? t('sim.topup.confirmOk') : t('sim.topup.next')}
      confirmLoading={topup.isPending}
      unmountOnExit
    >
      {confirming ? (
        <Alert
          type="warning"
          data-testid="sim-topup-confirm"
          content={t('sim.topup.confirm', {
            user: who ?? `#${confirming.uid}`,
            amount: yuan(confirming.fen),
            after: before === undefined ? '-' : yuan(before + confirming.fen),
          })}
        />
      ) : (
        <Form<Values> form={form} layout="vertical">
          {uid === undefined ? (
            <Form.Item
              label={t('sim.topup.user')}
              field="uid"
              rules={[{ required: true, message: t('sim.topup.user.required') }]}
            >
              <AccountSelect placeholder={t('sim.topup.user.placeholder')} onPick={setPicked} />
            </Form.Item>
          ) : (
            <Form.Item label={t('sim.topup.user')}>
              <span>
                {username}
                {balanceFen !== undefined && ` · ${t('sim.topup.current', { balance: yuan(balanceFen) })}`}
              </span>
            </Form.Item>
          )}
          <Form.Item
            label={t('sim.topup.amount')}
            field="amount"
            rules={[
              { required: true, message: t('sim.topup.amount.required') },
              { type: 'number', min: 0.01, message: t('sim.topup.amount.min') },
            ]}
          >
            <InputNumber
              prefix="¥"
              min={0.01}
              max={MAX_AMOUNT_FEN / 100}
              precision={2}
              step={10}
              placeholder="100.00"
              style={{ width: 220 }}
            />
          </Form.Item>
          <Form.Item label={t('sim.topup.note')} field="note">
            <Input.TextArea maxLength={200} showWordLimit placeholder={t('sim.topup.note.placeholder')} />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}
