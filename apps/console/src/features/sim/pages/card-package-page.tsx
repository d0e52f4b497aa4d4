import type { OrderDetail, SimCardItem } from '@cellhub/contract/sim';
import { Alert, Button, Card, Radio, Result, Space, Spin, Tabs, Typography } from '@arco-design/web-react';
import { useQueries } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { http } from '../../../lib/request';
import { SIM_KEY, useBalance, usePackageList } from '../api';
import { CardPicker } from '../components/card-picker';
import { LedgerTable } from '../components/ledger-table';
import { OrderSummary, type PickedCard } from '../components/order-summary';
import { OrdersTable } from '../components/orders-table';
import { PackageCards } from '../components/package-cards';
import { PayResult } from '../components/pay-result';
import locale from '../locale';
import { yuan } from '../sim-format';
import styles from './sim.module.css';

const TABS = ['buy', 'orders', 'balance'] as const;
type Tab = (typeof TABS)[number];

const ICCID = /^\d{19,20}$/;

/** Buy a package for one or many of the caller's cards, paid from the balance. */
function BuyPanel({ initialIccids, onShowOrders }: { initialIccids: string[]; onShowOrders: () => void }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [picked, setPicked] = useState<string[]>(initialIccids);
  const [known, setKnown] = useState<Record<string, PickedCard>>({});
  const [packageId, setPackageId] = useState<number>();
  const [operator, setOperator] = useState<string>('');
  const [paid, setPaid] = useState<OrderDetail>();
  const balance = useBalance();
  const packages = usePackageList({ current: 1, per_page: 100 });

  // Cards named in the address (from the list's "renew" or the detail page) are read one by one.
  const preset = useQueries({
    queries: initialIccids.map((iccid) => ({
      queryKey: [...SIM_KEY, 'card', iccid],
      queryFn: () => http.get<SimCardItem>(`/api/cards/${iccid}`, { silent: true }),
      retry: false,
    })),
  });
  const presetCards = preset.flatMap((q) => (q.data ? [q.data] : []));
  const missing = initialIccids.filter((_, i) => preset[i]?.isError);

  const onSeen = useCallback((cards: SimCardItem[]) => {
    setKnown((k) => {
      const next = { ...k };
      for (const c of cards) next[c.iccid] = c;
      return next;
    });
  }, []);

  const all: Record<string, PickedCard> = { ...known };
  for (const c of presetCards) all[c.iccid] = c;
  const cards = picked.flatMap((i) => (all[i] ? [all[i]] : []));
  const operators = [...new Set(cards.map((c) => c.operator))];
  const onSale = packages.data?.data ?? [];
  const shown = onSale.filter((p) => !operator || p.operator === operator);
  const pkg = onSale.find((p) => p.id === packageId);
  // Packages the picked cards are on now: buying one of them again renews it.
  const currentIds = new Set(cards.flatMap((c) => (c.package_id ? [c.package_id] : [])));

  if (paid) {
    return (
      <PayResult
        order={paid}
        balanceFen={balance.data?.balance_fen}
        extra={
          <Space>
            <Button
              type="primary"
              onClick={() => {
                setPaid(undefined);
                setPackageId(undefined);
              }}
            >
              {t('sim.pay.again')}
            </Button>
            <Button onClick={onShowOrders}>{t('sim.pay.viewOrders')}</Button>
            {paid.cards.length === 1 && (
              <Button onClick={() => void navigate(`/card/detail/${paid.cards[0]!.iccid}`)}>
                {t('sim.pay.viewCard')}
              </Button>
            )}
          </Space>
        }
      />
    );
  }

  return (
    <div className={styles.buyLayout}>
      <div className={styles.buyMain}>
        <div className={styles.sectionTitle}>{t('sim.buy.step1')}</div>
        <CardPicker value={picked} onChange={setPicked} onSeen={onSeen} />
        {missing.length > 0 && (
          <Alert
            type="warning"
            style={{ marginTop: 8 }}
            content={t('sim.buy.missing', { iccids: missing.join(', ') })}
          />
        )}
        {operators.length > 1 && (
          <Alert type="warning" style={{ marginTop: 8 }} content={t('sim.buy.mixedOperators')} />
        )}
        <Space
          className={styles.sectionTitle}
          style={{ marginTop: 24, width: '100%', justifyContent: 'space-between' }}
        >
          <span>{t('sim.buy.step2')}</span>
          <Radio.Group type="button" size="small" value={operator} onChange={setOperator}>
            <Radio value="">{t('sim.filter.all')}</Radio>
            {[...new Set(onSale.map((p) => p.operator))].map((o) => (
              <Radio key={o} value={o}>
                {t(`sim.operator.${o}`)}
              </Radio>
            ))}
          </Radio.Group>
        </Space>
        {packages.isLoading ? (
          <Spin style={{ display: 'block', margin: 32 }} />
        ) : packages.isError ? (
          <Result
            status="error"
            title={t('sim.loadError')}
            extra={<Button onClick={() => void packages.refetch()}>{t('sim.retry')}</Button>}
          />
        ) : (
          <PackageCards
            packages={shown}
            value={packageId}
            onChange={setPackageId}
            currentIds={currentIds}
            disabledReason={(p) =>
              cards.some((c) => c.operator !== p.operator)
                ? t('sim.buy.onlyFor', { operator: t(`sim.operator.${p.operator}`) })
                : undefined
            }
          />
        )}
      </div>
      <div className={styles.buySide}>
        <Card title={t('sim.summary.title')} bordered>
          <OrderSummary
            pkg={pkg}
            cards={cards}
            balance={balance.data}
            onPaid={async (order) => {
              await balance.refetch();
              setPaid(order);
            }}
          />
        </Card>
      </div>
    </div>
  );
}

/** The balance and its ledger (there is no route of its own: the ledger lives beside what it pays for). */
function BalancePanel() {
  const t = useLocale(locale);
  const balance = useBalance();
  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <div>
        <Typography.Text type="secondary">{t('sim.balance.current')}</Typography.Text>
        <div className={styles.balanceFigure} data-testid="sim-balance">
          {balance.data ? yuan(balance.data.balance_fen) : '-'}
        </div>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {balance.data?.updatedat
            ? t('sim.balance.updated', { time: formatTime(balance.data.updatedat) })
            : t('sim.balance.topupHint')}
        </Typography.Text>
      </div>
      <LedgerTable />
    </Space>
  );
}

/** /card/package: buy packages, the caller's orders, and the balance with its ledger (tabs, `?tab=`). */
export default function CardPackagePage() {
  const t = useLocale(locale);
  const [search, setSearch] = useSearchParams();
  const wanted = search.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(wanted ?? '') ? (wanted as Tab) : 'buy';
  const initialIccids = useMemo(
    () => (search.get('iccids') ?? '').split(',').filter((i) => ICCID.test(i)),
    // Only the first render's address preselects cards.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );
  const balance = useBalance();

  const setTab = (k: string) =>
    setSearch(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('iccids');
        if (k === 'buy') next.delete('tab');
        else next.set('tab', k);
        return next;
      },
      { replace: true },
    );

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={t('sim.package.pageTitle')}
        extra={
          <Space size={6}>
            <Typography.Text type="secondary">{t('sim.balance.current')}</Typography.Text>
            <b className={styles.money} data-testid="sim-header-balance">
              {balance.data ? yuan(balance.data.balance_fen) : '-'}
            </b>
          </Space>
        }
      >
        <Tabs activeTab={tab} onChange={setTab} headerPadding={false}>
          <Tabs.TabPane key="buy" title={t('sim.tab.buy')}>
            <BuyPanel initialIccids={initialIccids} onShowOrders={() => setTab('orders')} />
          </Tabs.TabPane>
          <Tabs.TabPane key="orders" title={t('sim.tab.orders')}>
            <OrdersTable />
          </Tabs.TabPane>
          <Tabs.TabPane key="balance" title={t('sim.tab.balance')}>
            <BalancePanel />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
