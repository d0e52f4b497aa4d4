import type { DeviceHostAddress } from '@cellhub/contract/device-hosts';
import { Form, type FormInstance, Grid, Select, Space, Tag } from '@arco-design/web-react';
import { useQuery } from '@tanstack/react-query';
import { useLocale } from '../../../../lib/i18n';
import { http } from '../../../../lib/request';
import locale from '../../locale/detail-index';
import type { ConfigFormValues } from './config-model';

/** The enabled device hosts' addresses (docs/device-hosts.md), read once per half minute for every socket. */
function useHostAddresses() {
  return useQuery({
    queryKey: ['device-hosts', 'addresses'],
    queryFn: () => http.get<DeviceHostAddress[]>('/api/device-hosts/addresses', { silent: true }),
    staleTime: 30_000,
  });
}

interface SocketValues {
  socket?: { protocol?: string; server?: string; port?: number | string }[];
}

/**
 * Above a socket's settings: the device host it points at, if any (server, port and protocol of an enabled host),
 * and a choice of the hosts that fills those three fields in.
 */
export function SocketHostPicker({ index, form }: { index: number; form: FormInstance<ConfigFormValues> }) {
  const t = useLocale(locale);
  const data = useHostAddresses().data;
  const hosts = Array.isArray(data) ? data : [];
  if (hosts.length === 0) return null;
  const pick = (id: number) => {
    const h = hosts.find((x) => x.id === id);
    if (!h) return;
    form.setFieldValue(`socket[${index}].protocol`, h.protocol);
    form.setFieldValue(`socket[${index}].server`, h.address);
    form.setFieldValue(`socket[${index}].port`, h.port);
  };
  return (
    <Grid.Row gutter={16}>
      <Grid.Col span={24}>
        <Form.Item shouldUpdate noStyle>
          {(values: SocketValues) => {
            const s = values.socket?.[index];
            const match = hosts.find(
              (h) =>
                h.address === s?.server &&
                h.port === Number(s?.port) &&
                (!s?.protocol || s.protocol === h.protocol),
            );
            return (
              <Space style={{ marginBottom: 12 }} data-testid={`config-socket-${index + 1}-host`}>
                <Select
                  size="small"
                  style={{ width: 360 }}
                  placeholder={t('deviceDetail.config.socket.host.pick')}
                  value={match?.id}
                  onChange={(id: number) => pick(id)}
                  options={hosts.map((h) => ({
                    value: h.id,
                    label: `${h.name} · ${h.protocol.toUpperCase()} ${h.address}:${h.port}`,
                  }))}
                />
                {match ? (
                  <Tag color="arcoblue">
                    {t('deviceDetail.config.socket.host.pointing', { name: match.name })}
                  </Tag>
                ) : null}
              </Space>
            );
          }}
        </Form.Item>
      </Grid.Col>
    </Grid.Row>
  );
}
