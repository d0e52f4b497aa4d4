import {
  CHECKSUM_ALGORITHMS,
  CHECKSUM_HEX_LENGTH,
  type ChecksumAlgorithm,
  FIRMWARE_EXTENSIONS,
  FIRMWARE_VERSION_RULE,
  type FirmwareVersion,
} from '@cellhub/contract/firmware';
import {
  Button,
  Card,
  Descriptions,
  Form,
  Grid,
  Input,
  Message,
  Progress,
  Radio,
  Space,
  Switch,
  Upload,
} from '@arco-design/web-react';
import { IconDelete, IconFile } from '@arco-design/web-react/icon';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale, type Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import {
  useFirmware,
  useFirmwareVersion,
  useImportVersion,
  useUpdateVersion,
  useUploadVersion,
} from '../api';
import { formatSize } from '../../../lib/format-size';
import locale from '../locale';
import styles from '../pages/firmware.module.css';
import { checksumFits, FIRMWARE_ACCEPT, hasFirmwareExtension } from '../version-rules';
import { recordState, isRecordId } from '../../../components/result-page/result-page';

const { Row, Col } = Grid;

type Mode = 'upload' | 'url';

interface Values {
  version: string;
  algorithm: ChecksumAlgorithm;
  checksum?: string;
  description?: string;
  latest: boolean;
  url?: string;
}

const EXT_TEXT = FIRMWARE_EXTENSIONS.join(' ');

interface FieldIssue {
  field: string;
  message: string;
}

/** Puts a refusal next to the field it is about; answers false when it belongs to no field. */
function showRefusal(e: ApiError, mode: Mode, setField: (field: string, message: string) => void): boolean {
  const details = Array.isArray(e.details) ? (e.details as FieldIssue[]) : [];
  if (e.code === 70002) {
    setField('version', e.message);
    return true;
  }
  // 40004: the URL points where the server may not connect (private or local address).
  if ((e.code === 10113 || e.code === 40004) && details.length > 0) {
    for (const d of details) setField(d.field === 'file' && mode === 'url' ? 'url' : d.field, d.message);
    return true;
  }
  if (e.code === 50001 || e.code === 50002) {
    setField(mode === 'url' ? 'url' : 'file', e.message);
    return true;
  }
  if (e.code === 40001 || e.code === 40002) {
    setField('url', details[0] ? `${e.message}: ${details[0].message}` : e.message);
    return true;
  }
  return false;
}

function VersionFields({
  t,
  algorithm,
  edit,
}: {
  t: Translate;
  algorithm: ChecksumAlgorithm;
  edit?: boolean;
}) {
  return (
    <Row gutter={24}>
      <Col span={12}>
        <Form.Item
          label={t('firmware.versionForm.version')}
          field="version"
          rules={[
            { required: true, message: t('firmware.versionForm.version.required') },
            { match: FIRMWARE_VERSION_RULE, message: t('firmware.versionForm.version.rule') },
          ]}
        >
          <Input maxLength={64} placeholder="1.2.0" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={t('firmware.versionForm.algorithm')} field="algorithm">
          <Radio.Group type="button">
            {CHECKSUM_ALGORITHMS.map((a) => (
              <Radio key={a} value={a}>
                {a === 'md5' ? 'MD5' : 'SHA-256'}
              </Radio>
            ))}
          </Radio.Group>
        </Form.Item>
      </Col>
      {!edit && (
        <Col span={24}>
          <Form.Item
            label={t('firmware.versionForm.checksum')}
            field="checksum"
            extra={t('firmware.versionForm.checksum.help')}
            rules={[
              {
                validator: (v: string | undefined, cb) =>
                  cb(
                    checksumFits(v, algorithm)
                      ? undefined
                      : t('firmware.versionForm.checksum.rule', { n: CHECKSUM_HEX_LENGTH[algorithm] }),
                  ),
              },
            ]}
          >
            <Input className={styles.checksum} maxLength={64} allowClear />
          </Form.Item>
        </Col>
      )}
      <Col span={24}>
        <Form.Item
          label={t('firmware.versionForm.latest')}
          field="latest"
          triggerPropName="checked"
          extra={t('firmware.versionForm.latest.help')}
        >
          <Switch />
        </Form.Item>
      </Col>
      <Col span={24}>
        <Form.Item label={t('firmware.versionForm.description')} field="description">
          <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 5 }} />
        </Form.Item>
      </Col>
    </Row>
  );
}

function FileInfo({ v, t }: { v: FirmwareVersion; t: Translate }) {
  return (
    <Descriptions
      column={1}
      size="small"
      labelStyle={{ width: 120 }}
      style={{ marginBottom: 16 }}
      title={t('firmware.versionForm.fileInfo')}
      data={[
        { label: t('firmware.versionForm.filename'), value: v.filename },
        { label: t('firmware.versionForm.size'), value: `${formatSize(v.size)} (${v.size} B)` },
        { label: 'MD5', value: <span className={styles.checksum}>{v.md5}</span> },
        { label: 'SHA-256', value: <span className={styles.checksum}>{v.sha256}</span> },
        ...(v.url ? [{ label: t('firmware.versionForm.sourceUrl'), value: v.url }] : []),
      ]}
    />
  );
}

/** Upload a new version (file or URL) or edit one (`versionId`): version string, algorithm, latest, notes. */
export default function VersionForm({ firmwareId, versionId }: { firmwareId: number; versionId?: number }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const firmware = useFirmware(firmwareId);
  const existing = useFirmwareVersion(firmwareId, versionId);
  const upload = useUploadVersion();
  const importer = useImportVersion();
  const update = useUpdateVersion();
  const [mode, setMode] = useState<Mode>('upload');
  const [file, setFile] = useState<File>();
  const [fileError, setFileError] = useState<string>();
  const [progress, setProgress] = useState<{ loaded: number; total: number }>();
  const abort = useRef<AbortController>();
  const algorithm = (Form.useWatch('algorithm', form) as ChecksumAlgorithm | undefined) ?? 'md5';
  const backTo = `/firmware/detail/${firmwareId}`;

  useEffect(() => {
    const v = existing.data;
    if (v) {
      form.setFieldsValue({
        version: v.version,
        algorithm: v.algorithm,
        description: v.description,
        latest: v.latest,
      });
    }
  }, [existing.data, form]);
  // Leaving the page cancels an upload in flight.
  useEffect(() => () => abort.current?.abort(), []);

  const setField = (field: string, message: string) => {
    if (field === 'file') setFileError(message);
    else form.setFields({ [field]: { error: { message } } });
  };

  const pick = (picked: File | undefined) => {
    setProgress(undefined);
    if (!picked) {
      setFile(undefined);
      return;
    }
    setFile(picked);
    setFileError(
      hasFirmwareExtension(picked.name)
        ? undefined
        : t('firmware.versionForm.file.badType', { ext: EXT_TEXT }),
    );
  };

  const submit = async () => {
    if (!versionId && mode === 'upload' && !file) setFileError(t('firmware.versionForm.file.required'));
    const values = await form.validate();
    if (!versionId && mode === 'upload' && (!file || fileError)) return;
    const common = {
      version: values.version.trim(),
      description: (values.description ?? '').trim(),
      algorithm: values.algorithm,
      latest: !!values.latest,
    };
    try {
      if (versionId) {
        await update.mutateAsync({ id: firmwareId, versionId, body: common });
        Message.success(t('firmware.versionForm.saved'));
      } else if (mode === 'upload') {
        abort.current = new AbortController();
        setProgress({ loaded: 0, total: file!.size });
        await upload.mutateAsync({
          id: firmwareId,
          fields: { ...common, checksum: (values.checksum ?? '').trim() },
          file: file!,
          signal: abort.current.signal,
          // The request also carries the form fields: show the share of the file itself.
          onProgress: (loaded, total) =>
            setProgress({
              loaded: Math.min(file!.size, Math.round((loaded / (total || file!.size)) * file!.size)),
              total: file!.size,
            }),
        });
        Message.success(t('firmware.versionForm.uploaded'));
      } else {
        await importer.mutateAsync({
          id: firmwareId,
          body: { ...common, url: (values.url ?? '').trim(), checksum: (values.checksum ?? '').trim() },
        });
        Message.success(t('firmware.versionForm.imported'));
      }
      void navigate(backTo);
    } catch (e) {
      setProgress(undefined);
      if (!(e instanceof ApiError)) return;
      if (!showRefusal(e, mode, setField) && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  // The firmware first (its list is the way back), then the version being edited (back to its firmware).
  const state =
    recordState(firmware, { badId: !isRecordId(firmwareId), back: '/firmware/list' }) ??
    recordState(existing, {
      skip: versionId === undefined,
      badId: versionId !== undefined && !isRecordId(versionId),
      back: backTo,
    });
  if (state) return state;

  const busy = upload.isPending || importer.isPending || update.isPending;
  const sent = progress && progress.total > 0 ? Math.min(100, (progress.loaded / progress.total) * 100) : 0;

  return (
    <PageContainer>
      <Card
        bordered={false}
        className={styles.formCard}
        title={versionId ? t('firmware.versionForm.editTitle') : t('firmware.versionForm.createTitle')}
        extra={
          firmware.data && (
            <span className={styles.muted}>
              {t('firmware.versionForm.firmware')}: {firmware.data.name}
            </span>
          )
        }
      >
        {versionId && existing.data && <FileInfo v={existing.data} t={t} />}
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={{ algorithm: 'md5', latest: false }}
          onSubmit={() => void submit()}
          scrollToFirstError
        >
          {!versionId && (
            <>
              <Form.Item label={t('firmware.versionForm.mode')}>
                <Radio.Group
                  type="button"
                  value={mode}
                  onChange={(m: Mode) => {
                    setMode(m);
                    setFileError(undefined);
                  }}
                >
                  <Radio value="upload">{t('firmware.versionForm.mode.upload')}</Radio>
                  <Radio value="url">{t('firmware.versionForm.mode.url')}</Radio>
                </Radio.Group>
              </Form.Item>
              {mode === 'upload' ? (
                <Form.Item
                  label={t('firmware.versionForm.file')}
                  required
                  validateStatus={fileError ? 'error' : undefined}
                  help={fileError}
                >
                  {file ? (
                    <div className={styles.fileCard} data-testid="firmware-file">
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
                                ? t('firmware.versionForm.processing')
                                : t('firmware.versionForm.progress', {
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
                        aria-label={t('firmware.versionForm.file.remove')}
                      />
                    </div>
                  ) : (
                    <Upload
                      drag
                      autoUpload={false}
                      showUploadList={false}
                      fileList={[]}
                      accept={FIRMWARE_ACCEPT}
                      onChange={(_list, item) => pick(item.originFile)}
                      tip={t('firmware.versionForm.file.types', { ext: EXT_TEXT })}
                    />
                  )}
                </Form.Item>
              ) : (
                <Form.Item
                  label={t('firmware.versionForm.url')}
                  field="url"
                  extra={t('firmware.versionForm.url.help')}
                  rules={[
                    { required: true, message: t('firmware.versionForm.url.required') },
                    { match: /^https?:\/\/\S+$/i, message: t('firmware.versionForm.url.rule') },
                  ]}
                >
                  <Input maxLength={2048} placeholder="https://example.com/firmware/dtu-1.2.0.bin" />
                </Form.Item>
              )}
            </>
          )}
          <VersionFields t={t} algorithm={algorithm} edit={!!versionId} />
          {versionId && <div className={styles.muted}>{t('firmware.versionForm.fileFixed')}</div>}
          <Space className={styles.actions}>
            <Button type="primary" htmlType="submit" loading={busy}>
              {versionId
                ? t('firmware.save')
                : mode === 'upload'
                  ? t('firmware.versionForm.upload')
                  : t('firmware.versionForm.import')}
            </Button>
            <Button onClick={() => void navigate(backTo)}>{t('firmware.cancel')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
