/** The keyword-only filter row the alert configuration and contact lists share. */
import { Form, type FormInstance, Grid, Input } from '@arco-design/web-react';
import { ListSearchBar } from '../../../components/list-search-bar';

type Translate = (key: string) => string;

export function KeywordSearchRow({
  t,
  form,
  onSearch,
  placeholder,
}: {
  t: Translate;
  form: FormInstance<{ keyword?: string }>;
  onSearch: () => void;
  placeholder: string;
}) {
  return (
    <ListSearchBar
      form={form}
      labelCol={{ span: 5 }}
      wrapperCol={{ span: 19 }}
      labelAlign="left"
      onSearch={onSearch}
    >
      <Grid.Row gutter={24}>
        <Grid.Col span={12}>
          <Form.Item label={t('alert.keyword')} field="keyword">
            <Input placeholder={placeholder} allowClear maxLength={64} />
          </Form.Item>
        </Grid.Col>
      </Grid.Row>
    </ListSearchBar>
  );
}
