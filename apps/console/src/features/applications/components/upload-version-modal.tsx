import {
  APPLICATION_DEFAULT_MAX_BYTES,
  APPLICATION_EXTENSIONS,
  APPLICATION_VERSION_RULE,
} from '@cellhub/contract/applications';
import { Button, Form, Grid, Input, Message, Modal, Progress, Switch, Upload } from '@arco-design/web-react';
import { IconDelete, IconFile } from '@arco-design/web-react/icon';
import { useEffect, useRef, useState } from 'react';
import { formatSize } from '../../../lib/format-size';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useUploadVersion } from '../api';
import locale from '../locale';
import styles from './applications.module.css';

interface Values {
  version: string;
  notes_zh?: string;
  notes_en?: string;
  latest: boolean;
  force_update: boolean;
}

const EXT_TEXT = APPLICATION_EXTENSIONS.join(' ');
const hasExtension = (name: string) => {
  const lower = name.toLowerCase();
  return APPLICATION_EXTENSIONS.some((e) => lower.endsWith(e) && lower.length > e.length);
};

/** Upload a new version: the package with progress (cancelled when the modal closes), notes, latest, force. */
export function UploadVersionModal({
  applicationId,
  visible,
  onClose,
}: {
  applicationId: number;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const upload = useUploadVersion();
  const [file, setFile] = useState<File>();
  const [fileError, setFileError] = useState<string>();
  const [progress, setProgress] = useState<{ loaded: number; total: number }>();
  const abort = useRef<AbortController>();
  useEffect(() => () => abort.current?.abort(), []);

  const pick = (picked: File | undefined) => {
    setProgress(undefined);
    setFile(picked);
    setFileError(
      picked && !hasExtension(picked.name)
        ? t('application.upload.file.badType', { ext: EXT_TEXT })
        : undefined,
    );
  };

  const close = () => {
    abort.current?.abort();
    form.resetFields();
    pick(undefined);
    onClose();
  };

  const submit = async () => {
    if (!file) setFileError(t('application.upload.file.required'));
    const values = await form.validate();
    if (!file || fileError) return;
    abort.current = new AbortController();
    setProgress({ loaded: 0, total: file.size });
    try {
      await upload.mutateAsync({
        id: applicationId,
        fields: {
          version: values.version.trim(),
          notes_zh: (values.notes_zh ?? '').trim(),
          notes_en: (values.notes_en ?? '').trim(),
          latest: !!values.latest,
          force_update: !!values.force_update,
        },
        file,
        signal: abort.current.signal,
        // The request also carries the form fields: show the share of the file itself.
        onProgress: (loaded, total) =>
          setProgress({
            loaded: Math.min(file.size, Math.round((loaded / (total || file.size)) * file.size)),
            total: file.size,
          }),
      });
      Message.success(t('application.upload.done'));
      close();
    } catch (e) {
      setProgress(undefined);
      if (!(e instanceof ApiError)) return;
      const details = Array.isArray(e.details) ? (e.details as { field: string; message: string }[]) : [];
      if (e.code === 50001 || e.code === 50002) setFileError(e.message);
      else if (e.code === 10113 && details.length > 0) {
        for (const d of details) {
          if (d.field === 'file') setFileError(d.message);
          else form.setFields({ [d.field]: { error: { message: d.message } } });
        }
      } else if (e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const sent = progress && progress.total > 0 ? Math.min(100, (progress.loaded / progress.total) * 100) : 0;
  const busy = upload.isPending;

  return (
    <Modal
      title={t('application.upload.title')}
      visible={visible}
      onCancel={close}
      onOk={() => void submit()}
      okText={t('application.upload.submit')}
      cancelText={t('application.cancel')}
      confirmLoading={busy}
      style={{ width: 640 }}
      unmountOnExit
    >
      <Form<Values> form={form} layout="vertical" initialValues={{ latest: true, force_update: false }}>
        <Form.Item
          label={t('application.upload.version')}
          field="version"
          rules={[
            { required: true, message: t('application.upload.version.required') },
            { match: APPLICATION_VERSION_RULE, message: t('application.upload.version.rule') },
          ]}
        >
          <Input maxLength={64} placeholder="1.2.0" />
        </Form.Item>
        <Form.Item
          label={t('application.upload.file')}
          required
          validateStatus={fileError ? 'error' : undefined}
          help={fileError}
        >
          {file ? (
            <div className={styles.fileCard} data-testid="application-file">
              <IconFile className={styles.fileIcon} />
              <div className={styles.fileMeta}>
                <div className={styles.fileName}>{file.name}</div>
                <div className={styles.muted}>
                  {formatSize(file.size)} ({file.size} B)
                </div>
                {progress && (
                  <div className={styles.progress}>
                    <Progress percent={Math.floor(sent)} size="small" />
                    <div className={styles.muted}>
                      {progress.loaded >= progress.total
                        ? t('application.upload.processing')
                        : t('application.upload.progress', {
                            loaded: formatSize(progress.loaded),
                            total: formatSize(progress.total),
                          })}
                    </div>
                  </div>
                )}
              </div>
              <Button
                type="text"
                icon={<IconDelete />}
                disabled={busy}
                onClick={() => pick(undefined)}
                aria-label={t('application.upload.file.remove')}
              />
            </div>
          ) : (
            <Upload
              drag
              autoUpload={false}
              showUploadList={false}
              fileList={[]}
              accept={APPLICATION_EXTENSIONS.join(',')}
              onChange={(_list, item) => pick(item.originFile)}
              tip={t('application.upload.file.types', {
                ext: EXT_TEXT,
                max: formatSize(APPLICATION_DEFAULT_MAX_BYTES),
              })}
            />
          )}
        </Form.Item>
        <Form.Item label={t('application.upload.notesZh')} field="notes_zh">
          <Input.TextArea maxLength={4000} autoSize={{ minRows: 2, maxRows: 5 }} />
        </Form.Item>
        <Form.Item label={t('application.upload.notesEn')} field="notes_en">
          <Input.TextArea maxLength={4000} autoSize={{ minRows: 2, maxRows: 5 }} />
        </Form.Item>
        {/* The two flags side by side keep the dialog within a 800 px high window. */}
        <Grid.Row gutter={24}>
          <Grid.Col span={12}>
            <Form.Item
              label={t('application.upload.latest')}
              field="latest"
              triggerPropName="checked"
              extra={t('application.upload.latest.help')}
            >
              <Switch />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={12}>
            <Form.Item
              label={t('application.upload.force')}
              field="force_update"
              triggerPropName="checked"
              extra={t('application.upload.force.help')}
            >
              <Switch />
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
      </Form>
    </Modal>
  );
}
