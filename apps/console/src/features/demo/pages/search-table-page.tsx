import {
  Badge,
  Button,
  Card,
  DatePicker,
  Divider,
  Form,
  Grid,
  Input,
  Select,
  Space,
  Table,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconPlus, IconRefresh, IconSearch } from '@arco-design/web-react/icon';
import { useMemo, useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import { SAMPLE_ROWS, type SampleRow } from '../sample-data';

interface Filters {
  id?: string;
  name?: string;
  contentType?: SampleRow['contentType'];
  filterType?: SampleRow['filterType'];
  createdTime?: [string, string];
  status?: SampleRow['status'];
}

export default function SearchTablePage() {
  const t = useLocale(locale);
  const [form] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});

  const rows = useMemo(
    () =>
      SAMPLE_ROWS.filter(
        (r) =>
          (!filters.id || r.id.includes(filters.id)) &&
          (!filters.name || r.name.toLowerCase().includes(filters.name.toLowerCase())) &&
          (!filters.contentType || r.contentType === filters.contentType) &&
          (!filters.filterType || r.filterType === filters.filterType) &&
          (!filters.status || r.status === filters.status) &&
          (!filters.createdTime ||
            (r.createdTime.slice(0, 10) >= filters.createdTime[0] &&
              r.createdTime.slice(0, 10) <= filters.createdTime[1])),
      ),
    [filters],
  );

  const typeOptions = (['img', 'horizontal', 'vertical'] as const).map((v) => ({
    value: v,
    label: t(`searchTable.type.${v}`),
  }));
  const filterOptions = (['rule', 'manual'] as const).map((v) => ({
    value: v,
    label: t(`searchTable.filter.${v}`),
  }));
  const statusOptions = (['online', 'offline'] as const).map((v) => ({
    value: v,
    label: t(`searchTable.status.${v}`),
  }));

  const columns: TableColumnProps<SampleRow>[] = [
    {
      title: t('searchTable.id'),
      dataIndex: 'id',
      render: (v: string) => <Typography.Text copyable>{v}</Typography.Text>,
    },
    { title: t('searchTable.name'), dataIndex: 'name' },
    {
      title: t('searchTable.contentType'),
      dataIndex: 'contentType',
      render: (v: string) => t(`searchTable.type.${v}`),
    },
    {
      title: t('searchTable.filterType'),
      dataIndex: 'filterType',
      render: (v: string) => t(`searchTable.filter.${v}`),
    },
    { title: t('searchTable.count'), dataIndex: 'count', sorter: (a, b) => a.count - b.count },
    {
      title: t('searchTable.createdTime'),
      dataIndex: 'createdTime',
      sorter: (a, b) => a.createdTime.localeCompare(b.createdTime),
    },
    {
      title: t('searchTable.status'),
      dataIndex: 'status',
      render: (v: string) => (
        <Badge status={v === 'online' ? 'success' : 'default'} text={t(`searchTable.status.${v}`)} />
      ),
    },
    {
      title: t('demo.operations'),
      dataIndex: 'op',
      render: () => (
        <Button type="text" size="small">
          {t('demo.view')}
        </Button>
      ),
    },
  ];

  return (
    <PageContainer>
      <DemoNotice />
      <Card bordered={false} title={t('searchTable.title')}>
        <div style={{ display: 'flex' }}>
          <Form
            form={form}
            style={{ flex: 1 }}
            labelCol={{ span: 6 }}
            wrapperCol={{ span: 18 }}
            labelAlign="left"
            onSubmit={setFilters}
          >
            <Grid.Row gutter={24}>
              <Grid.Col span={8}>
                <Form.Item label={t('searchTable.id')} field="id">
                  <Input placeholder={t('searchTable.placeholder.id')} allowClear />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={8}>
                <Form.Item label={t('searchTable.name')} field="name">
                  <Input placeholder={t('searchTable.placeholder.name')} allowClear />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={8}>
                <Form.Item label={t('searchTable.contentType')} field="contentType">
                  <Select placeholder={t('demo.all')} options={typeOptions} allowClear />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={8}>
                <Form.Item label={t('searchTable.filterType')} field="filterType">
                  <Select placeholder={t('demo.all')} options={filterOptions} allowClear />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={8}>
                <Form.Item label={t('searchTable.createdTime')} field="createdTime">
                  <DatePicker.RangePicker style={{ width: '100%' }} />
                </Form.Item>
              </Grid.Col>
              <Grid.Col span={8}>
                <Form.Item label={t('searchTable.status')} field="status">
                  <Select placeholder={t('demo.all')} options={statusOptions} allowClear />
                </Form.Item>
              </Grid.Col>
            </Grid.Row>
          </Form>
          <Divider type="vertical" style={{ height: 84, margin: '0 20px' }} />
          <Space direction="vertical" size={18}>
            <Button type="primary" icon={<IconSearch />} onClick={() => setFilters(form.getFieldsValue())}>
              {t('demo.search')}
            </Button>
            <Button
              icon={<IconRefresh />}
              onClick={() => {
                form.resetFields();
                setFilters({});
              }}
            >
              {t('demo.reset')}
            </Button>
          </Space>
        </div>
        <Divider style={{ marginTop: 0 }} />
        <div style={{ display: 'flex', justifyContent: 'space-between', marginBottom: 16 }}>
          <Space>
            <Button type="primary" icon={<IconPlus />}>
              {t('demo.create')}
            </Button>
            <Button>{t('demo.import')}</Button>
          </Space>
          <Button icon={<IconDownload />}>{t('demo.download')}</Button>
        </div>
        <Table<SampleRow>
          rowKey="id"
          columns={columns}
          data={rows}
          pagination={{ pageSize: 10, showTotal: true }}
        />
      </Card>
    </PageContainer>
  );
}
