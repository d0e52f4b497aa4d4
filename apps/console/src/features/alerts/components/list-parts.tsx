/**
 * Parts the alert lists share: the Edit / Delete (with confirmation) cell of a row, and the keyword-only filter
 * row of the configuration and contact lists.
 */
import {
  Button,
  Form,
  type FormInstance,
  Grid,
  Input,
  Message,
  Popconfirm,
  Space,
} from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListSearchBar } from '../../../components/list-search-bar';
import styles from '../pages/alert.module.css';

type Translate = (key: string) => string;

export function EditDeleteActions({
  t,
  editPath,
  onDelete,
}: {
  t: Translate;
  editPath: string;
  onDelete: () => Promise<unknown>;
}) {
  const navigate = useNavigate();
  return (
    <Space size={0} className={styles.nowrap}>
      <Button type="text" size="small" onClick={() => void navigate(editPath)}>
        {t('alert.edit')}
      </Button>
      <Popconfirm
        title={t('alert.delete.confirm')}
        onOk={() => onDelete().then(() => Message.success(t('alert.deleted')))}
      >
        <Button type="text" size="small" status="danger">
          {t('alert.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}

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
