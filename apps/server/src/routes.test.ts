import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteAuth } from './plugins/fastify-types';
import { buildTestApp, errorOf, type TestApp } from './test/app';

/**
 * Every API route with who may call it and one invalid request. The first test fails when a route is added without
 * a row here, so each new route gets the sign-in, role, input and rate-limit checks below.
 */
interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** As in the OpenAPI document. */
  path: string;
  url: string;
  auth: RouteAuth;
  bad?: Pick<InjectOptions, 'payload' | 'query' | 'url'>;
}

const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/api/health', url: '/api/health', auth: 'public' },
  // A WebSocket: it signs in with its first message, so the upgrade itself is public (realtime.plugin.test.ts).
  { method: 'GET', path: '/api/ws', url: '/api/ws', auth: 'public' },
  {
    method: 'POST',
    path: '/api/auth/login',
    url: '/api/auth/login',
    auth: 'public',
    bad: { payload: { username: 'a' } },
  },
  {
    method: 'POST',
    path: '/api/auth/login/phone',
    url: '/api/auth/login/phone',
    auth: 'public',
    bad: { payload: { phone: '1', captcha: 'abc' } },
  },
  {
    method: 'POST',
    path: '/api/auth/register',
    url: '/api/auth/register',
    auth: 'public',
    bad: { payload: { username: '!', password: 'x' } },
  },
  { method: 'POST', path: '/api/auth/logout', url: '/api/auth/logout', auth: 'user' },
  {
    method: 'POST',
    path: '/api/user/smscode',
    url: '/api/user/smscode',
    auth: 'optional',
    bad: { payload: { phone: '1', purpose: 'spam' } },
  },
  { method: 'POST', path: '/api/auth/wechat/qr', url: '/api/auth/wechat/qr', auth: 'public' },
  {
    method: 'GET',
    path: '/api/auth/wechat/qr/{ticket}',
    url: '/api/auth/wechat/qr/abc',
    auth: 'public',
    bad: { url: `/api/auth/wechat/qr/${'t'.repeat(65)}` },
  },
  {
    method: 'GET',
    path: '/api/auth/wechat/callback',
    url: '/api/auth/wechat/callback?state=abc',
    auth: 'public',
    bad: { url: `/api/auth/wechat/callback?state=${'s'.repeat(200)}` },
  },
  { method: 'GET', path: '/api/user/info', url: '/api/user/info', auth: 'user' },
  { method: 'POST', path: '/api/user/menu', url: '/api/user/menu', auth: 'user' },
  {
    method: 'PUT',
    path: '/api/user/password',
    url: '/api/user/password',
    auth: 'user',
    bad: { payload: {} },
  },
  {
    method: 'PUT',
    path: '/api/user/phone',
    url: '/api/user/phone',
    auth: 'user',
    bad: { payload: { phone: 'x' } },
  },
  {
    method: 'PUT',
    path: '/api/user/profile',
    url: '/api/user/profile',
    auth: 'user',
    bad: { payload: { profile: 'p'.repeat(201) } },
  },
  { method: 'POST', path: '/api/user/wechat/qr', url: '/api/user/wechat/qr', auth: 'user' },
  {
    method: 'GET',
    path: '/api/user/wechat/qr/{ticket}',
    url: '/api/user/wechat/qr/abc',
    auth: 'user',
    bad: { url: `/api/user/wechat/qr/${'t'.repeat(65)}` },
  },
  { method: 'DELETE', path: '/api/user/wechat', url: '/api/user/wechat', auth: 'user' },
  { method: 'GET', path: '/api/users', url: '/api/users', auth: 'admin', bad: { query: { current: '0' } } },
  {
    method: 'POST',
    path: '/api/users',
    url: '/api/users',
    auth: 'admin',
    bad: { payload: { username: 'x', password: 'short' } },
  },
  {
    method: 'PUT',
    path: '/api/users/{id}',
    url: '/api/users/2',
    auth: 'admin',
    bad: { payload: { email: 'nope' } },
  },
  {
    method: 'PUT',
    path: '/api/users/{id}/disable',
    url: '/api/users/2/disable',
    auth: 'admin',
    bad: { url: '/api/users/-1/disable' },
  },
  {
    method: 'PUT',
    path: '/api/users/{id}/enable',
    url: '/api/users/2/enable',
    auth: 'admin',
    bad: { url: '/api/users/x/enable' },
  },
  {
    method: 'PUT',
    path: '/api/users/{id}/password',
    url: '/api/users/2/password',
    auth: 'admin',
    bad: { payload: { new_password: 'short' } },
  },
  {
    method: 'GET',
    path: '/api/products',
    url: '/api/products',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/products',
    url: '/api/products',
    auth: 'user',
    bad: { payload: { name: '', product_key: 'a/b' } },
  },
  {
    method: 'GET',
    path: '/api/products/{product_key}',
    url: '/api/products/pk_missing',
    auth: 'user',
    bad: { url: '/api/products/a$' },
  },
  {
    method: 'PUT',
    path: '/api/products/{product_key}',
    url: '/api/products/pk_missing',
    auth: 'user',
    bad: { payload: { mqtt_interval: -1 } },
  },
  {
    method: 'DELETE',
    path: '/api/products/{product_key}',
    url: '/api/products/pk_missing',
    auth: 'user',
    bad: { url: '/api/products/a$' },
  },
  {
    method: 'POST',
    path: '/api/products/{product_key}/secret',
    url: '/api/products/pk_missing/secret',
    auth: 'user',
    bad: { url: '/api/products/a$/secret' },
  },
  {
    method: 'POST',
    path: '/api/products/{product_key}/properties',
    url: '/api/products/pk_missing/properties',
    auth: 'user',
    bad: { payload: { key: '1bad', name: '' } },
  },
  {
    method: 'PUT',
    path: '/api/products/{product_key}/properties/{key}',
    url: '/api/products/pk_missing/properties/temp',
    auth: 'user',
    bad: { payload: { key: 'temp', name: 'T', datatype: 'float' } },
  },
  {
    method: 'DELETE',
    path: '/api/products/{product_key}/properties/{key}',
    url: '/api/products/pk_missing/properties/temp',
    auth: 'user',
    bad: { url: '/api/products/pk_missing/properties/1bad' },
  },
  {
    method: 'GET',
    path: '/api/products/{product_key}/platform-credentials',
    url: '/api/products/pk_missing/platform-credentials',
    auth: 'user',
    bad: { query: { per_page: '101' } },
  },
  {
    method: 'PUT',
    path: '/api/products/{product_key}/platform-credentials',
    url: '/api/products/pk_missing/platform-credentials',
    auth: 'user',
    bad: { payload: { items: [] } },
  },
  {
    method: 'POST',
    path: '/api/products/{product_key}/platform-sync',
    url: '/api/products/pk_missing/platform-sync',
    auth: 'user',
    bad: { url: '/api/products/a$/platform-sync' },
  },
  {
    method: 'GET',
    path: '/api/platforms',
    url: '/api/platforms',
    auth: 'admin',
    bad: { query: { platform_type: 'huawei' } },
  },
  {
    method: 'POST',
    path: '/api/platforms',
    url: '/api/platforms',
    auth: 'admin',
    bad: { payload: { name: 'x', platform_type: 'aliyun', platform_config: { region_id: 'Shanghai' } } },
  },
  { method: 'GET', path: '/api/platforms/options', url: '/api/platforms/options', auth: 'user' },
  {
    method: 'GET',
    path: '/api/platforms/{id}',
    url: '/api/platforms/999',
    auth: 'admin',
    bad: { url: '/api/platforms/x' },
  },
  {
    method: 'PUT',
    path: '/api/platforms/{id}',
    url: '/api/platforms/999',
    auth: 'admin',
    bad: { payload: { name: 'm', platform_type: 'mqtt', platform_config: { host: 'bad host', port: 0 } } },
  },
  {
    method: 'DELETE',
    path: '/api/platforms/{id}',
    url: '/api/platforms/999',
    auth: 'admin',
    bad: { url: '/api/platforms/0' },
  },
  { method: 'GET', path: '/api/devices', url: '/api/devices', auth: 'user', bad: { query: { online: '2' } } },
  {
    method: 'POST',
    path: '/api/devices',
    url: '/api/devices',
    auth: 'user',
    bad: { payload: { product_key: 'pk_missing', sn: [] } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}',
    url: '/api/devices/sn-missing',
    auth: 'user',
    bad: { url: '/api/devices/a+b' },
  },
  {
    method: 'PUT',
    path: '/api/devices/{sn}',
    url: '/api/devices/sn-missing',
    auth: 'user',
    bad: { payload: { disabled: 'yes' } },
  },
  {
    method: 'DELETE',
    path: '/api/devices/{sn}',
    url: '/api/devices/sn-missing',
    auth: 'user',
    bad: { url: '/api/devices/a+b' },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/commands',
    url: '/api/devices/sn-missing/commands',
    auth: 'user',
    bad: { payload: { type: 'bin', data: '' } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/commands',
    url: '/api/devices/sn-missing/commands',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/commands/{id}/cancel',
    url: '/api/devices/sn-missing/commands/0123456789abcdef/cancel',
    auth: 'user',
    bad: { url: '/api/devices/sn-missing/commands/not-hex/cancel' },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/config',
    url: '/api/devices/sn-missing/config',
    auth: 'user',
    bad: { url: '/api/devices/a+b/config' },
  },
  {
    method: 'PUT',
    path: '/api/devices/{sn}/config',
    url: '/api/devices/sn-missing/config',
    auth: 'user',
    bad: { payload: { config: { mqtt: { port: 0 } } } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/properties',
    url: '/api/devices/sn-missing/properties',
    auth: 'user',
    bad: { query: { from: 'yesterday' } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/properties/series',
    url: '/api/devices/sn-missing/properties/series?key=temp&range=7d',
    auth: 'user',
    bad: { url: '/api/devices/sn-missing/properties/series?key=temp&range=2d' },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/logs',
    url: '/api/devices/sn-missing/logs',
    auth: 'user',
    bad: { query: { event: 'nope' } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/drops',
    url: '/api/devices/sn-missing/drops',
    auth: 'user',
    bad: { url: '/api/devices/a+b/drops' },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/events',
    url: '/api/devices/sn-missing/events',
    auth: 'user',
    bad: { query: { from: 'yesterday' } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/thing-model',
    url: '/api/devices/sn-missing/thing-model',
    auth: 'user',
    bad: { url: '/api/devices/a+b/thing-model' },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/raw',
    url: '/api/devices/sn-missing/raw',
    auth: 'user',
    bad: { query: { per_page: '1000' } },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/raw',
    url: '/api/devices/sn-missing/raw',
    auth: 'user',
    bad: { payload: { data: '', encoding: 'hex' } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/tunnels',
    url: '/api/devices/sn-missing/tunnels',
    auth: 'user',
    bad: { query: { per_page: '1000' } },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/tunnels',
    url: '/api/devices/sn-missing/tunnels',
    auth: 'user',
    bad: { payload: { name: 'T', local_ip: '10.0.0.300', local_port: 80 } },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/tunnels/{id}/close',
    url: '/api/devices/sn-missing/tunnels/1/close',
    auth: 'user',
    bad: { url: '/api/devices/sn-missing/tunnels/0/close' },
  },
  // A WebSocket tunnel's path: its secret, the opener's address and right admit it (tunnels-ws.test.ts).
  {
    method: 'GET',
    path: '/api/tunnels/{id}/ws/{secret}',
    url: '/api/tunnels/1/ws/abc',
    auth: 'public',
    bad: { url: '/api/tunnels/0/ws/abc' },
  },
  {
    method: 'POST',
    path: '/api/devices/bind',
    url: '/api/devices/bind',
    auth: 'user',
    bad: { payload: { sn: 'a/b', secret: '' } },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/unbind',
    url: '/api/devices/sn-missing/unbind',
    auth: 'user',
    bad: { url: '/api/devices/a+b/unbind' },
  },
  {
    method: 'POST',
    path: '/api/devices/import',
    url: '/api/devices/import?product_key=pk_missing',
    auth: 'user',
    bad: { url: '/api/devices/import?product_key=a/b&update_only=maybe' },
  },
  {
    method: 'GET',
    path: '/api/public/devices/{sn}',
    url: '/api/public/devices/sn-missing',
    auth: 'public',
    bad: { url: '/api/public/devices/a+b' },
  },
  {
    method: 'POST',
    path: '/api/device-auth/register',
    url: '/api/device-auth/register',
    auth: 'public',
    bad: { payload: { product_key: 'pk', sn: 'x', ts: 'now', sign: 'zz' } },
  },
  // EMQX's auth hooks (docs/external-brokers.md): no sign-in but a shared secret checked before the body is read,
  // so bad input answers 401 here; modules/broker-auth/emqx-hooks.test.ts checks both with the secret.
  {
    method: 'POST',
    path: '/api/broker-auth/emqx/authn',
    url: '/api/broker-auth/emqx/authn',
    auth: 'public',
  },
  {
    method: 'POST',
    path: '/api/broker-auth/emqx/authz',
    url: '/api/broker-auth/emqx/authz',
    auth: 'public',
  },
  // user commands, config templates, dashboard
  {
    method: 'GET',
    path: '/api/user-commands',
    url: '/api/user-commands',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/user-commands',
    url: '/api/user-commands',
    auth: 'user',
    bad: { payload: { name: '', type: 'bin' } },
  },
  {
    method: 'GET',
    path: '/api/user-commands/{id}',
    url: '/api/user-commands/1',
    auth: 'user',
    bad: { url: '/api/user-commands/abc' },
  },
  {
    method: 'PUT',
    path: '/api/user-commands/{id}',
    url: '/api/user-commands/1',
    auth: 'user',
    bad: { payload: { type: 'bin' } },
  },
  {
    method: 'DELETE',
    path: '/api/user-commands/{id}',
    url: '/api/user-commands/1',
    auth: 'user',
    bad: { url: '/api/user-commands/0' },
  },
  {
    method: 'POST',
    path: '/api/user-commands/{id}/send',
    url: '/api/user-commands/1/send',
    auth: 'user',
    bad: { payload: { sns: [] } },
  },
  {
    method: 'GET',
    path: '/api/user-commands/{id}/runs',
    url: '/api/user-commands/1/runs',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'GET',
    path: '/api/user-commands/{id}/runs/{runId}',
    url: '/api/user-commands/1/runs/1',
    auth: 'user',
    bad: { url: '/api/user-commands/1/runs/x' },
  },
  // command groups (docs/product-tooling.md)
  {
    method: 'GET',
    path: '/api/command-groups',
    url: '/api/command-groups',
    auth: 'admin',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/command-groups',
    url: '/api/command-groups',
    auth: 'admin',
    bad: { payload: { product_key: '', name: '' } },
  },
  {
    method: 'GET',
    path: '/api/command-groups/{id}',
    url: '/api/command-groups/1',
    auth: 'admin',
    bad: { url: '/api/command-groups/abc' },
  },
  {
    method: 'PUT',
    path: '/api/command-groups/{id}',
    url: '/api/command-groups/1',
    auth: 'admin',
    bad: { payload: { name: '' } },
  },
  {
    method: 'DELETE',
    path: '/api/command-groups/{id}',
    url: '/api/command-groups/1',
    auth: 'admin',
    bad: { url: '/api/command-groups/0' },
  },
  {
    method: 'POST',
    path: '/api/command-groups/{id}/commands',
    url: '/api/command-groups/1/commands',
    auth: 'admin',
    bad: { payload: { name: 'x', type: 'bin' } },
  },
  {
    method: 'GET',
    path: '/api/command-groups/{id}/commands/{cmdId}',
    url: '/api/command-groups/1/commands/1',
    auth: 'admin',
    bad: { url: '/api/command-groups/1/commands/x' },
  },
  {
    method: 'PUT',
    path: '/api/command-groups/{id}/commands/{cmdId}',
    url: '/api/command-groups/1/commands/1',
    auth: 'admin',
    bad: { payload: { name: 'x', type: 'hex', timeout_s: 0 } },
  },
  {
    method: 'DELETE',
    path: '/api/command-groups/{id}/commands/{cmdId}',
    url: '/api/command-groups/1/commands/1',
    auth: 'admin',
    bad: { url: '/api/command-groups/1/commands/0' },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/command-groups',
    url: '/api/devices/SN1/command-groups',
    auth: 'user',
    bad: { url: '/api/devices/%20bad/command-groups' },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/command-groups/commands/{cmdId}/send',
    url: '/api/devices/SN1/command-groups/commands/1/send',
    auth: 'user',
    bad: { payload: { params: { x: {} } } },
  },
  // data templates (docs/data-templates.md)
  {
    method: 'GET',
    path: '/api/data-templates',
    url: '/api/data-templates',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/data-templates',
    url: '/api/data-templates',
    auth: 'user',
    bad: { payload: { name: '', type: 'modbus_ascii' } },
  },
  {
    method: 'GET',
    path: '/api/data-templates/{id}',
    url: '/api/data-templates/1',
    auth: 'user',
    bad: { url: '/api/data-templates/abc' },
  },
  {
    method: 'PUT',
    path: '/api/data-templates/{id}',
    url: '/api/data-templates/1',
    auth: 'user',
    bad: { payload: { collect_mode: 'cloud' } },
  },
  {
    method: 'DELETE',
    path: '/api/data-templates/{id}',
    url: '/api/data-templates/1',
    auth: 'user',
    bad: { url: '/api/data-templates/0' },
  },
  {
    method: 'POST',
    path: '/api/data-templates/{id}/copy',
    url: '/api/data-templates/1/copy',
    auth: 'user',
    bad: { payload: { name: '' } },
  },
  {
    method: 'POST',
    path: '/api/data-templates/{id}/slaves',
    url: '/api/data-templates/1/slaves',
    auth: 'user',
    bad: { payload: { name: 'S', address: 248 } },
  },
  {
    method: 'PUT',
    path: '/api/data-templates/{id}/slaves/{slaveId}',
    url: '/api/data-templates/1/slaves/1',
    auth: 'user',
    bad: { payload: { serial_port: 'usb' } },
  },
  {
    method: 'DELETE',
    path: '/api/data-templates/{id}/slaves/{slaveId}',
    url: '/api/data-templates/1/slaves/1',
    auth: 'user',
    bad: { url: '/api/data-templates/1/slaves/x' },
  },
  {
    method: 'POST',
    path: '/api/data-templates/{id}/slaves/{slaveId}/variables',
    url: '/api/data-templates/1/slaves/1/variables',
    auth: 'user',
    bad: {
      payload: {
        name: 'T',
        tag: '1bad',
        register_type: 'holding',
        register_address: 1,
        data_format: 'int16',
      },
    },
  },
  {
    method: 'PUT',
    path: '/api/data-templates/{id}/variables/{varId}',
    url: '/api/data-templates/1/variables/1',
    auth: 'user',
    bad: { payload: { decimals: 5 } },
  },
  {
    method: 'DELETE',
    path: '/api/data-templates/{id}/variables/{varId}',
    url: '/api/data-templates/1/variables/1',
    auth: 'user',
    bad: { url: '/api/data-templates/1/variables/0' },
  },
  {
    method: 'GET',
    path: '/api/data-templates/{id}/slaves/{slaveId}/variables/export',
    url: '/api/data-templates/1/slaves/1/variables/export',
    auth: 'user',
    bad: { url: '/api/data-templates/1/slaves/x/variables/export' },
  },
  {
    method: 'POST',
    path: '/api/data-templates/{id}/slaves/{slaveId}/variables/import',
    url: '/api/data-templates/1/slaves/1/variables/import',
    auth: 'user',
    bad: { url: '/api/data-templates/x/slaves/1/variables/import' },
  },
  {
    method: 'GET',
    path: '/api/data-templates/{id}/devices',
    url: '/api/data-templates/1/devices',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'POST',
    path: '/api/data-templates/{id}/devices',
    url: '/api/data-templates/1/devices',
    auth: 'user',
    bad: { payload: { sns: [] } },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/data-template',
    url: '/api/devices/SN1/data-template',
    auth: 'user',
    bad: { url: '/api/devices/%20bad/data-template' },
  },
  {
    method: 'PUT',
    path: '/api/devices/{sn}/data-template',
    url: '/api/devices/SN1/data-template',
    auth: 'user',
    bad: { payload: { template_id: 0 } },
  },
  {
    method: 'DELETE',
    path: '/api/devices/{sn}/data-template',
    url: '/api/devices/SN1/data-template',
    auth: 'user',
    bad: { url: '/api/devices/%20bad/data-template' },
  },
  {
    method: 'PUT',
    path: '/api/products/{product_key}/data-template',
    url: '/api/products/pk000000000000/data-template',
    auth: 'user',
    bad: { payload: { template_id: 'x' } },
  },
  {
    method: 'DELETE',
    path: '/api/products/{product_key}/data-template',
    url: '/api/products/pk000000000000/data-template',
    auth: 'user',
    bad: { url: '/api/products/a%20b/data-template' },
  },
  // platform polling of Modbus slaves (docs/modbus-polling.md)
  {
    method: 'GET',
    path: '/api/devices/{sn}/modbus/variables',
    url: '/api/devices/SN1/modbus/variables',
    auth: 'user',
    bad: { url: '/api/devices/%20bad/modbus/variables' },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/modbus/variables/{tag}/read',
    url: '/api/devices/SN1/modbus/variables/temp/read',
    auth: 'user',
    bad: { url: '/api/devices/SN1/modbus/variables/%20bad/read' },
  },
  {
    method: 'POST',
    path: '/api/devices/{sn}/modbus/variables/{tag}/write',
    url: '/api/devices/SN1/modbus/variables/temp/write',
    auth: 'user',
    bad: { payload: { value: 'high' } },
  },
  // forwarding (docs/forwarding.md)
  {
    method: 'GET',
    path: '/api/forwarding',
    url: '/api/forwarding',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/forwarding',
    url: '/api/forwarding',
    auth: 'user',
    bad: { payload: { name: 'F', kinds: ['property'], target: { kind: 'kafka', url: 'kafka://x' } } },
  },
  {
    method: 'GET',
    path: '/api/forwarding/{id}',
    url: '/api/forwarding/1',
    auth: 'user',
    bad: { url: '/api/forwarding/abc' },
  },
  {
    method: 'PUT',
    path: '/api/forwarding/{id}',
    url: '/api/forwarding/1',
    auth: 'user',
    bad: { payload: { name: '', kinds: [] } },
  },
  {
    method: 'DELETE',
    path: '/api/forwarding/{id}',
    url: '/api/forwarding/1',
    auth: 'user',
    bad: { url: '/api/forwarding/0' },
  },
  {
    method: 'PUT',
    path: '/api/forwarding/{id}/enabled',
    url: '/api/forwarding/1/enabled',
    auth: 'user',
    bad: { payload: { enabled: 'yes' } },
  },
  {
    method: 'POST',
    path: '/api/forwarding/{id}/secret',
    url: '/api/forwarding/1/secret',
    auth: 'user',
    bad: { url: '/api/forwarding/x/secret' },
  },
  {
    method: 'POST',
    path: '/api/forwarding/{id}/test',
    url: '/api/forwarding/1/test',
    auth: 'user',
    bad: { payload: { kind: 'kafka' } },
  },
  {
    method: 'GET',
    path: '/api/forwarding/{id}/stats',
    url: '/api/forwarding/1/stats',
    auth: 'user',
    bad: { query: { range: '1y' } },
  },
  {
    method: 'GET',
    path: '/api/forwarding/{id}/dead',
    url: '/api/forwarding/1/dead',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'POST',
    path: '/api/forwarding/{id}/dead/replay',
    url: '/api/forwarding/1/dead/replay',
    auth: 'user',
    bad: { payload: { ids: ['x'] } },
  },
  // scenes (docs/scenes.md)
  {
    method: 'GET',
    path: '/api/scene-models',
    url: '/api/scene-models',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/scene-models',
    url: '/api/scene-models',
    auth: 'user',
    bad: { payload: { name: '', slots: [{ name: '1bad' }] } },
  },
  {
    method: 'POST',
    path: '/api/scene-models/import',
    url: '/api/scene-models/import',
    auth: 'user',
    bad: { payload: { nofile: 1, extra: [] } },
  },
  {
    method: 'GET',
    path: '/api/scene-models/{id}',
    url: '/api/scene-models/1',
    auth: 'user',
    bad: { url: '/api/scene-models/abc' },
  },
  {
    method: 'PUT',
    path: '/api/scene-models/{id}',
    url: '/api/scene-models/1',
    auth: 'user',
    bad: { payload: { name: '' } },
  },
  {
    method: 'DELETE',
    path: '/api/scene-models/{id}',
    url: '/api/scene-models/1',
    auth: 'user',
    bad: { url: '/api/scene-models/0' },
  },
  {
    method: 'POST',
    path: '/api/scene-models/{id}/copy',
    url: '/api/scene-models/1/copy',
    auth: 'user',
    bad: { payload: { name: '' } },
  },
  {
    method: 'GET',
    path: '/api/scene-models/{id}/export',
    url: '/api/scene-models/1/export',
    auth: 'user',
    bad: { url: '/api/scene-models/x/export' },
  },
  {
    method: 'GET',
    path: '/api/scenes',
    url: '/api/scenes',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'POST',
    path: '/api/scenes',
    url: '/api/scenes',
    auth: 'user',
    bad: { payload: { name: 'S', document: { format: 'cellhub.scene', version: 1 } } },
  },
  {
    method: 'POST',
    path: '/api/scenes/from-model',
    url: '/api/scenes/from-model',
    auth: 'user',
    bad: { payload: { model_id: 1, name: 'S', bindings: { pump: 'bad sn!' } } },
  },
  {
    method: 'POST',
    path: '/api/scenes/import',
    url: '/api/scenes/import',
    auth: 'user',
    bad: { payload: [] },
  },
  {
    method: 'GET',
    path: '/api/scenes/{id}',
    url: '/api/scenes/1',
    auth: 'user',
    bad: { url: '/api/scenes/abc' },
  },
  {
    method: 'PUT',
    path: '/api/scenes/{id}',
    url: '/api/scenes/1',
    auth: 'user',
    bad: { payload: { remark: 1 } },
  },
  {
    method: 'DELETE',
    path: '/api/scenes/{id}',
    url: '/api/scenes/1',
    auth: 'user',
    bad: { url: '/api/scenes/-1' },
  },
  {
    method: 'POST',
    path: '/api/scenes/{id}/copy',
    url: '/api/scenes/1/copy',
    auth: 'user',
    bad: { payload: { name: '' } },
  },
  {
    method: 'GET',
    path: '/api/scenes/{id}/export',
    url: '/api/scenes/1/export',
    auth: 'user',
    bad: { url: '/api/scenes/x/export' },
  },
  {
    method: 'GET',
    path: '/api/scenes/{id}/values',
    url: '/api/scenes/1/values',
    auth: 'user',
    bad: { url: '/api/scenes/x/values' },
  },
  {
    method: 'POST',
    path: '/api/scenes/{id}/widgets/{widgetId}/write',
    url: '/api/scenes/1/widgets/sp/write',
    auth: 'user',
    bad: { payload: { value: 'high' } },
  },
  {
    method: 'GET',
    path: '/api/scenes/{id}/shares',
    url: '/api/scenes/1/shares',
    auth: 'user',
    bad: { url: '/api/scenes/x/shares' },
  },
  {
    method: 'POST',
    path: '/api/scenes/{id}/shares',
    url: '/api/scenes/1/shares',
    auth: 'user',
    bad: { payload: { to: '' } },
  },
  {
    method: 'POST',
    path: '/api/scenes/{id}/images',
    url: '/api/scenes/1/images',
    auth: 'user',
    bad: { url: '/api/scenes/-1/images' },
  },
  {
    method: 'GET',
    path: '/api/scenes/{id}/images/{fileId}',
    url: '/api/scenes/1/images/abc',
    auth: 'user',
    bad: { url: '/api/scenes/1/images/a%20b' },
  },
  {
    method: 'DELETE',
    path: '/api/scenes/{id}/shares/{uid}',
    url: '/api/scenes/1/shares/2',
    auth: 'user',
    bad: { url: '/api/scenes/1/shares/x' },
  },
  // data transmission (docs/data-transmit.md)
  {
    method: 'GET',
    path: '/api/data-transmit',
    url: '/api/data-transmit',
    auth: 'user',
    bad: { query: { status: '2' } },
  },
  { method: 'GET', path: '/api/data-transmit/groups', url: '/api/data-transmit/groups', auth: 'user' },
  {
    method: 'GET',
    path: '/api/data-transmit/devices',
    url: '/api/data-transmit/devices',
    auth: 'user',
    bad: { query: { per_page: '1000' } },
  },
  {
    method: 'POST',
    path: '/api/data-transmit',
    url: '/api/data-transmit',
    auth: 'user',
    bad: { payload: { name: 'R', management: [], edge: [{ sn: 'bad sn' }] } },
  },
  {
    method: 'GET',
    path: '/api/data-transmit/{id}',
    url: '/api/data-transmit/1',
    auth: 'user',
    bad: { url: '/api/data-transmit/abc' },
  },
  {
    method: 'PUT',
    path: '/api/data-transmit/{id}',
    url: '/api/data-transmit/1',
    auth: 'user',
    bad: { payload: { name: '\u0000' } },
  },
  {
    method: 'PUT',
    path: '/api/data-transmit/{id}/status',
    url: '/api/data-transmit/1/status',
    auth: 'user',
    bad: { payload: { status: 5 } },
  },
  {
    method: 'DELETE',
    path: '/api/data-transmit/{id}',
    url: '/api/data-transmit/1',
    auth: 'user',
    bad: { url: '/api/data-transmit/0' },
  },
  // gateway rules (docs/gateway-rules.md)
  {
    method: 'GET',
    path: '/api/gateway-rules',
    url: '/api/gateway-rules',
    auth: 'user',
    bad: { query: { per_page: '1000' } },
  },
  {
    method: 'GET',
    path: '/api/gateway-rules/candidates',
    url: '/api/gateway-rules/candidates?nodetype=gateway',
    auth: 'user',
    bad: { url: '/api/gateway-rules/candidates?nodetype=direct' },
  },
  {
    method: 'POST',
    path: '/api/gateway-rules',
    url: '/api/gateway-rules',
    auth: 'user',
    bad: { payload: { name: 'R', gateway_sn: 'bad sn' } },
  },
  {
    method: 'GET',
    path: '/api/gateway-rules/{id}',
    url: '/api/gateway-rules/1',
    auth: 'user',
    bad: { url: '/api/gateway-rules/abc' },
  },
  {
    method: 'PUT',
    path: '/api/gateway-rules/{id}',
    url: '/api/gateway-rules/1',
    auth: 'user',
    bad: { payload: { name: '' } },
  },
  {
    method: 'DELETE',
    path: '/api/gateway-rules/{id}',
    url: '/api/gateway-rules/1',
    auth: 'user',
    bad: { url: '/api/gateway-rules/0' },
  },
  {
    method: 'POST',
    path: '/api/gateway-rules/{id}/bind',
    url: '/api/gateway-rules/1/bind',
    auth: 'user',
    bad: { payload: { sub_devices: [] } },
  },
  {
    method: 'POST',
    path: '/api/gateway-rules/{id}/unbind',
    url: '/api/gateway-rules/1/unbind',
    auth: 'user',
    bad: { payload: { sns: ['bad sn'] } },
  },
  {
    method: 'GET',
    path: '/api/thing-models/{product_key}',
    url: '/api/thing-models/pk000000000000',
    auth: 'admin',
    bad: { url: '/api/thing-models/x' },
  },
  {
    method: 'POST',
    path: '/api/thing-models/{product_key}/preview',
    url: '/api/thing-models/pk000000000000/preview',
    auth: 'admin',
    bad: { payload: { events: [{ key: '1 bad', name: 'x' }] } },
  },
  {
    method: 'PUT',
    path: '/api/thing-models/{product_key}',
    url: '/api/thing-models/pk000000000000',
    auth: 'admin',
    bad: { payload: { services: [{ key: 'a', name: '' }] } },
  },
  {
    method: 'GET',
    path: '/api/product-features',
    url: '/api/product-features',
    auth: 'admin',
    bad: { query: { current: '0' } },
  },
  {
    method: 'POST',
    path: '/api/product-features',
    url: '/api/product-features',
    auth: 'admin',
    bad: { payload: { key: 'GPS!', name: 'GPS' } },
  },
  {
    method: 'GET',
    path: '/api/product-features/{id}',
    url: '/api/product-features/1',
    auth: 'admin',
    bad: { url: '/api/product-features/abc' },
  },
  {
    method: 'PUT',
    path: '/api/product-features/{id}',
    url: '/api/product-features/1',
    auth: 'admin',
    bad: { payload: { key: 'gps', name: 'GPS', panels: ['nope'] } },
  },
  {
    method: 'DELETE',
    path: '/api/product-features/{id}',
    url: '/api/product-features/1',
    auth: 'admin',
    bad: { url: '/api/product-features/0' },
  },
  {
    method: 'GET',
    path: '/api/config-templates',
    url: '/api/config-templates',
    auth: 'user',
    bad: { query: { per_page: '101' } },
  },
  {
    method: 'POST',
    path: '/api/config-templates',
    url: '/api/config-templates',
    auth: 'user',
    bad: { payload: { name: 'x', config: {} } },
  },
  {
    method: 'GET',
    path: '/api/config-templates/{id}',
    url: '/api/config-templates/1',
    auth: 'user',
    bad: { url: '/api/config-templates/-1' },
  },
  {
    method: 'PUT',
    path: '/api/config-templates/{id}',
    url: '/api/config-templates/1',
    auth: 'user',
    bad: { payload: { config: { mqtt: { port: 0 } } } },
  },
  {
    method: 'DELETE',
    path: '/api/config-templates/{id}',
    url: '/api/config-templates/1',
    auth: 'user',
    bad: { url: '/api/config-templates/x' },
  },
  {
    method: 'POST',
    path: '/api/config-templates/{id}/apply',
    url: '/api/config-templates/1/apply',
    auth: 'user',
    bad: { payload: { sns: ['a b'] } },
  },
  {
    method: 'GET',
    path: '/api/config-templates/{id}/applies',
    url: '/api/config-templates/1/applies',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'GET',
    path: '/api/config-templates/{id}/applies/{applyId}',
    url: '/api/config-templates/1/applies/1',
    auth: 'user',
    bad: { url: '/api/config-templates/1/applies/0' },
  },
  // firmware
  {
    method: 'GET',
    path: '/api/firmware',
    url: '/api/firmware',
    auth: 'admin',
    bad: { query: { type: '2' } },
  },
  {
    method: 'POST',
    path: '/api/firmware',
    url: '/api/firmware',
    auth: 'admin',
    bad: { payload: { name: '', product_key: 'a/b', type: 3 } },
  },
  {
    method: 'GET',
    path: '/api/firmware/versions/usable',
    url: '/api/firmware/versions/usable',
    auth: 'user',
    bad: { query: { product_key: 'a/b' } },
  },
  {
    method: 'GET',
    path: '/api/firmware/{id}',
    url: '/api/firmware/999',
    auth: 'admin',
    bad: { url: '/api/firmware/x' },
  },
  {
    method: 'PUT',
    path: '/api/firmware/{id}',
    url: '/api/firmware/999',
    auth: 'admin',
    bad: { payload: { public: 'yes' } },
  },
  {
    method: 'DELETE',
    path: '/api/firmware/{id}',
    url: '/api/firmware/999',
    auth: 'admin',
    bad: { url: '/api/firmware/0' },
  },
  {
    method: 'GET',
    path: '/api/firmware/{id}/versions',
    url: '/api/firmware/999/versions',
    auth: 'admin',
    bad: { query: { per_page: '101' } },
  },
  {
    method: 'POST',
    path: '/api/firmware/{id}/versions',
    url: '/api/firmware/999/versions',
    auth: 'admin',
    bad: { url: '/api/firmware/-1/versions' },
  },
  {
    method: 'POST',
    path: '/api/firmware/{id}/versions/import',
    url: '/api/firmware/999/versions/import',
    auth: 'admin',
    bad: { payload: { version: '1.0', url: 'file:///etc/passwd' } },
  },
  {
    method: 'GET',
    path: '/api/firmware/{id}/versions/{versionId}',
    url: '/api/firmware/999/versions/1',
    auth: 'admin',
    bad: { url: '/api/firmware/999/versions/x' },
  },
  {
    method: 'PUT',
    path: '/api/firmware/{id}/versions/{versionId}',
    url: '/api/firmware/999/versions/1',
    auth: 'admin',
    bad: { payload: { version: 'a b', algorithm: 'crc32' } },
  },
  {
    method: 'DELETE',
    path: '/api/firmware/{id}/versions/{versionId}',
    url: '/api/firmware/999/versions/1',
    auth: 'admin',
    bad: { url: '/api/firmware/999/versions/0' },
  },
  {
    method: 'GET',
    path: '/api/firmware/{id}/versions/{versionId}/file',
    url: '/api/firmware/999/versions/1/file',
    auth: 'admin',
    bad: { url: '/api/firmware/999/versions/1.5/file' },
  },
  // applications
  {
    method: 'GET',
    path: '/api/applications',
    url: '/api/applications',
    auth: 'user',
    bad: { query: { platform: 'symbian' } },
  },
  {
    method: 'POST',
    path: '/api/applications',
    url: '/api/applications',
    auth: 'admin',
    bad: { payload: { name: '', platform: 'windows' } },
  },
  {
    method: 'GET',
    path: '/api/applications/{id}',
    url: '/api/applications/999',
    auth: 'user',
    bad: { url: '/api/applications/x' },
  },
  {
    method: 'PUT',
    path: '/api/applications/{id}',
    url: '/api/applications/999',
    auth: 'admin',
    bad: { payload: { platform: 'symbian' } },
  },
  {
    method: 'DELETE',
    path: '/api/applications/{id}',
    url: '/api/applications/999',
    auth: 'admin',
    bad: { url: '/api/applications/0' },
  },
  {
    method: 'GET',
    path: '/api/applications/{id}/latest',
    url: '/api/applications/999/latest',
    auth: 'user',
    bad: { url: `/api/applications/999/latest?current=${'9'.repeat(65)}` },
  },
  {
    method: 'GET',
    path: '/api/applications/{id}/versions',
    url: '/api/applications/999/versions',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/applications/{id}/versions',
    url: '/api/applications/999/versions',
    auth: 'admin',
    bad: { url: '/api/applications/-1/versions' },
  },
  {
    method: 'PUT',
    path: '/api/applications/{id}/versions/{versionId}',
    url: '/api/applications/999/versions/1',
    auth: 'admin',
    bad: { payload: { version: '../x' } },
  },
  {
    method: 'DELETE',
    path: '/api/applications/{id}/versions/{versionId}',
    url: '/api/applications/999/versions/1',
    auth: 'admin',
    bad: { url: '/api/applications/999/versions/0' },
  },
  {
    method: 'GET',
    path: '/api/applications/{id}/versions/{versionId}/file',
    url: '/api/applications/999/versions/1/file',
    auth: 'user',
    bad: { url: '/api/applications/999/versions/1.5/file' },
  },
  {
    method: 'POST',
    path: '/api/applications/{id}/versions/{versionId}/link',
    url: '/api/applications/999/versions/1/link',
    auth: 'user',
    bad: { url: '/api/applications/999/versions/x/link' },
  },
  {
    method: 'GET',
    path: '/api/application-files/{token}',
    url: `/api/application-files/1.abc.${'0'.repeat(64)}`,
    auth: 'public',
    bad: { url: '/api/application-files/1.abc.xyz' },
  },
  // ota
  {
    method: 'GET',
    path: '/api/ota/tasks',
    url: '/api/ota/tasks',
    auth: 'user',
    bad: { query: { status: 'sleeping' } },
  },
  {
    method: 'POST',
    path: '/api/ota/tasks',
    url: '/api/ota/tasks',
    auth: 'user',
    bad: { payload: { name: '', product_key: 'x', version_id: 0, targets: { type: 'some' } } },
  },
  {
    method: 'POST',
    path: '/api/ota/tasks/preview',
    url: '/api/ota/tasks/preview',
    auth: 'user',
    bad: { payload: { product_key: 'abcd', version_id: 1, targets: { type: 'pick', sns: [] } } },
  },
  {
    method: 'GET',
    path: '/api/ota/tasks/{id}',
    url: '/api/ota/tasks/999',
    auth: 'user',
    bad: { url: '/api/ota/tasks/x' },
  },
  {
    method: 'DELETE',
    path: '/api/ota/tasks/{id}',
    url: '/api/ota/tasks/999',
    auth: 'user',
    bad: { url: '/api/ota/tasks/0' },
  },
  {
    method: 'GET',
    path: '/api/ota/tasks/{id}/devices',
    url: '/api/ota/tasks/999/devices',
    auth: 'user',
    bad: { query: { status: '7' } },
  },
  {
    method: 'POST',
    path: '/api/ota/tasks/{id}/start',
    url: '/api/ota/tasks/999/start',
    auth: 'user',
    bad: { url: '/api/ota/tasks/-1/start' },
  },
  {
    method: 'POST',
    path: '/api/ota/tasks/{id}/pause',
    url: '/api/ota/tasks/999/pause',
    auth: 'user',
    bad: { url: '/api/ota/tasks/1.5/pause' },
  },
  {
    method: 'POST',
    path: '/api/ota/tasks/{id}/cancel',
    url: '/api/ota/tasks/999/cancel',
    auth: 'user',
    bad: { url: '/api/ota/tasks/abc/cancel' },
  },
  // A device downloads with its token, not a session; not flood-guarded (devices share carrier NAT addresses).
  {
    method: 'GET',
    path: '/api/ota/download/{token}',
    url: '/api/ota/download/1.1.abc.00',
    auth: 'public',
    bad: { url: `/api/ota/download/${'t'.repeat(513)}` },
  },
  { method: 'GET', path: '/api/dashboard/overview', url: '/api/dashboard/overview', auth: 'user' },
  {
    method: 'GET',
    path: '/api/dashboard/trend',
    url: '/api/dashboard/trend',
    auth: 'user',
    bad: { query: { range: '8' } },
  },
  {
    method: 'GET',
    path: '/api/dashboard/workplace',
    url: '/api/dashboard/workplace',
    auth: 'user',
    bad: { query: { since: 'yesterday' } },
  },
  // message box (docs/inbox.md)
  {
    method: 'GET',
    path: '/api/inbox',
    url: '/api/inbox',
    auth: 'user',
    bad: { query: { category: 'mail' } },
  },
  { method: 'GET', path: '/api/inbox/unread', url: '/api/inbox/unread', auth: 'user' },
  {
    method: 'POST',
    path: '/api/inbox/{id}/read',
    url: '/api/inbox/999/read',
    auth: 'user',
    bad: { url: '/api/inbox/x/read' },
  },
  {
    method: 'POST',
    path: '/api/inbox/read',
    url: '/api/inbox/read',
    auth: 'user',
    bad: { payload: { ids: [] } },
  },
  // alerts (docs/alerts.md)
  {
    method: 'GET',
    path: '/api/alert/triggers',
    url: '/api/alert/triggers',
    auth: 'user',
    bad: { query: { type: '8' } },
  },
  {
    method: 'POST',
    path: '/api/alert/triggers',
    url: '/api/alert/triggers',
    auth: 'user',
    bad: { payload: { name: '', type: 9, methods: ['pigeon'] } },
  },
  {
    method: 'GET',
    path: '/api/alert/triggers/{id}',
    url: '/api/alert/triggers/999',
    auth: 'user',
    bad: { url: '/api/alert/triggers/x' },
  },
  {
    method: 'PUT',
    path: '/api/alert/triggers/{id}',
    url: '/api/alert/triggers/999',
    auth: 'user',
    bad: { payload: { name: 'n', type: 3, silence_s: -1 } },
  },
  {
    method: 'PUT',
    path: '/api/alert/triggers/{id}/enable',
    url: '/api/alert/triggers/999/enable',
    auth: 'user',
    bad: { payload: { enable: 2 } },
  },
  {
    method: 'DELETE',
    path: '/api/alert/triggers/{id}',
    url: '/api/alert/triggers/999',
    auth: 'user',
    bad: { url: '/api/alert/triggers/0' },
  },
  {
    method: 'GET',
    path: '/api/alert/configs',
    url: '/api/alert/configs',
    auth: 'user',
    bad: { query: { enable: '3' } },
  },
  {
    method: 'POST',
    path: '/api/alert/configs',
    url: '/api/alert/configs',
    auth: 'user',
    bad: { payload: { name: 'c', trigger_ids: [1, 1] } },
  },
  {
    method: 'GET',
    path: '/api/alert/configs/{id}',
    url: '/api/alert/configs/999',
    auth: 'user',
    bad: { url: '/api/alert/configs/-1' },
  },
  {
    method: 'PUT',
    path: '/api/alert/configs/{id}',
    url: '/api/alert/configs/999',
    auth: 'user',
    bad: { payload: { name: 'c', interval_s: 0 } },
  },
  {
    method: 'DELETE',
    path: '/api/alert/configs/{id}',
    url: '/api/alert/configs/999',
    auth: 'user',
    bad: { url: '/api/alert/configs/1.5' },
  },
  {
    method: 'GET',
    path: '/api/alert/contacts',
    url: '/api/alert/contacts',
    auth: 'user',
    bad: { query: { per_page: '1000' } },
  },
  {
    method: 'POST',
    path: '/api/alert/contacts',
    url: '/api/alert/contacts',
    auth: 'user',
    bad: { payload: { name: 'x', email: 'not-an-email' } },
  },
  {
    method: 'GET',
    path: '/api/alert/contacts/{id}',
    url: '/api/alert/contacts/999',
    auth: 'user',
    bad: { url: '/api/alert/contacts/abc' },
  },
  {
    method: 'PUT',
    path: '/api/alert/contacts/{id}',
    url: '/api/alert/contacts/999',
    auth: 'user',
    bad: { payload: { name: 'x', phone: '123' } },
  },
  {
    method: 'DELETE',
    path: '/api/alert/contacts/{id}',
    url: '/api/alert/contacts/999',
    auth: 'user',
    bad: { url: '/api/alert/contacts/0' },
  },
  {
    method: 'POST',
    path: '/api/alert/contacts/{id}/code',
    url: '/api/alert/contacts/999/code',
    auth: 'user',
    bad: { payload: { channel: 'fax' } },
  },
  {
    method: 'POST',
    path: '/api/alert/contacts/{id}/verify',
    url: '/api/alert/contacts/999/verify',
    auth: 'user',
    bad: { payload: { channel: 'sms', code: '1'.repeat(17) } },
  },
  {
    method: 'GET',
    path: '/api/alert/history',
    url: '/api/alert/history',
    auth: 'user',
    bad: { query: { status: 'burning' } },
  },
  {
    method: 'POST',
    path: '/api/alert/history/{id}/ack',
    url: '/api/alert/history/999/ack',
    auth: 'user',
    bad: { url: '/api/alert/history/x/ack' },
  },
  {
    method: 'POST',
    path: '/api/alert/history/ack',
    url: '/api/alert/history/ack',
    auth: 'user',
    bad: { payload: { ids: [] } },
  },
  // sharing (docs/sharing.md)
  {
    method: 'POST',
    path: '/api/shares',
    url: '/api/shares',
    auth: 'user',
    bad: { payload: { sns: [], to: 'x', right: 'view' } },
  },
  {
    method: 'GET',
    path: '/api/shares/outgoing',
    url: '/api/shares/outgoing',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'GET',
    path: '/api/shares/incoming',
    url: '/api/shares/incoming',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'PUT',
    path: '/api/shares/{id}',
    url: '/api/shares/1',
    auth: 'user',
    bad: { payload: { right: 'owner' } },
  },
  {
    method: 'DELETE',
    path: '/api/shares/{id}',
    url: '/api/shares/1',
    auth: 'user',
    bad: { url: '/api/shares/0' },
  },
  {
    method: 'POST',
    path: '/api/share-links',
    url: '/api/share-links',
    auth: 'user',
    bad: { payload: { sns: ['SN1'], right: 'view', max_uses: 0 } },
  },
  {
    method: 'GET',
    path: '/api/share-links',
    url: '/api/share-links',
    auth: 'user',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'DELETE',
    path: '/api/share-links/{id}',
    url: '/api/share-links/1',
    auth: 'user',
    bad: { url: '/api/share-links/0' },
  },
  {
    method: 'GET',
    path: '/api/share-links/{token}',
    url: `/api/share-links/${'t'.repeat(32)}`,
    auth: 'user',
    bad: { url: `/api/share-links/${'t'.repeat(65)}` },
  },
  {
    method: 'POST',
    path: '/api/share-links/{token}/accept',
    url: `/api/share-links/${'t'.repeat(32)}/accept`,
    auth: 'user',
    bad: { url: `/api/share-links/${'t'.repeat(65)}/accept` },
  },
  // system settings: notification channels (admin)
  { method: 'GET', path: '/api/system/settings', url: '/api/system/settings', auth: 'admin' },
  {
    method: 'PUT',
    path: '/api/system/settings/sms',
    url: '/api/system/settings/sms',
    auth: 'admin',
    bad: { payload: { provider: 'carrier-pigeon' } },
  },
  {
    method: 'PUT',
    path: '/api/system/settings/email',
    url: '/api/system/settings/email',
    auth: 'admin',
    bad: { payload: { host: 'smtp.example.com', port: 70000 } },
  },
  {
    method: 'PUT',
    path: '/api/system/settings/wechat',
    url: '/api/system/settings/wechat',
    auth: 'admin',
    bad: { payload: { appid: 'wx invalid appid!' } },
  },
  {
    method: 'POST',
    path: '/api/system/settings/sms/test',
    url: '/api/system/settings/sms/test',
    auth: 'admin',
    bad: { payload: { to: '12345' } },
  },
  {
    method: 'POST',
    path: '/api/system/settings/email/test',
    url: '/api/system/settings/email/test',
    auth: 'admin',
    bad: { payload: { to: 'not-an-email' } },
  },
  {
    method: 'POST',
    path: '/api/system/settings/wechat/test',
    url: '/api/system/settings/wechat/test',
    auth: 'admin',
    bad: { payload: { to: 'o' } },
  },
  // map tiles (system settings > Map, admin) and what the console draws (signed in)
  { method: 'GET', path: '/api/system/settings/map', url: '/api/system/settings/map', auth: 'admin' },
  {
    method: 'PUT',
    path: '/api/system/settings/map',
    url: '/api/system/settings/map',
    auth: 'admin',
    bad: { payload: { provider: 'custom', custom_url: 'ftp://t.example.com/{z}/{x}/{y}' } },
  },
  { method: 'GET', path: '/api/map/tiles', url: '/api/map/tiles', auth: 'user' },
  // SIM cards, packages, orders, balance (docs/sim.md)
  {
    method: 'GET',
    path: '/api/card-admin/providers',
    url: '/api/card-admin/providers',
    auth: 'admin',
    bad: { query: { kind: 'sprint' } },
  },
  {
    method: 'POST',
    path: '/api/card-admin/providers',
    url: '/api/card-admin/providers',
    auth: 'admin',
    bad: { payload: { name: '', kind: 'manual' } },
  },
  {
    method: 'GET',
    path: '/api/card-admin/providers/{id}',
    url: '/api/card-admin/providers/999',
    auth: 'admin',
    bad: { url: '/api/card-admin/providers/abc' },
  },
  {
    method: 'PUT',
    path: '/api/card-admin/providers/{id}',
    url: '/api/card-admin/providers/999',
    auth: 'admin',
    bad: { payload: { kind: 'onelink', config: {} } },
  },
  {
    method: 'DELETE',
    path: '/api/card-admin/providers/{id}',
    url: '/api/card-admin/providers/999',
    auth: 'admin',
    bad: { url: '/api/card-admin/providers/0' },
  },
  {
    method: 'POST',
    path: '/api/card-admin/providers/{id}/test',
    url: '/api/card-admin/providers/999/test',
    auth: 'admin',
    bad: { url: '/api/card-admin/providers/x/test' },
  },
  {
    method: 'POST',
    path: '/api/card-admin/providers/{id}/sync',
    url: '/api/card-admin/providers/999/sync',
    auth: 'admin',
    bad: { url: '/api/card-admin/providers/1.5/sync' },
  },
  {
    method: 'GET',
    path: '/api/card-admin/sync-runs',
    url: '/api/card-admin/sync-runs',
    auth: 'admin',
    bad: { query: { status: 'lost' } },
  },
  {
    method: 'GET',
    path: '/api/cards',
    url: '/api/cards',
    auth: 'user',
    bad: { query: { expiring_days: '0' } },
  },
  {
    method: 'GET',
    path: '/api/cards/export',
    url: '/api/cards/export',
    auth: 'user',
    bad: { query: { flag: 'odd' } },
  },
  {
    method: 'GET',
    path: '/api/cards/{iccid}',
    url: '/api/cards/89860000000000000001',
    auth: 'user',
    bad: { url: '/api/cards/abc' },
  },
  {
    method: 'GET',
    path: '/api/cards/{iccid}/usage',
    url: '/api/cards/89860000000000000001/usage',
    auth: 'user',
    bad: { query: { granularity: 'week' } },
  },
  {
    method: 'GET',
    path: '/api/cards/{iccid}/orders',
    url: '/api/cards/89860000000000000001/orders',
    auth: 'user',
    bad: { query: { current: '0' } },
  },
  {
    method: 'GET',
    path: '/api/card-admin/cards',
    url: '/api/card-admin/cards',
    auth: 'admin',
    bad: { query: { per_page: '1000' } },
  },
  {
    method: 'GET',
    path: '/api/card-admin/cards/export',
    url: '/api/card-admin/cards/export',
    auth: 'admin',
    bad: { query: { operator: 'sprint' } },
  },
  {
    method: 'POST',
    path: '/api/card-admin/cards',
    url: '/api/card-admin/cards',
    auth: 'admin',
    bad: { payload: { iccid: '1', operator: 'china_mobile', provider_id: 1 } },
  },
  {
    method: 'PUT',
    path: '/api/card-admin/cards/{iccid}',
    url: '/api/card-admin/cards/89860000000000000001',
    auth: 'admin',
    bad: { payload: { status: 'gone' } },
  },
  {
    method: 'DELETE',
    path: '/api/card-admin/cards/{iccid}',
    url: '/api/card-admin/cards/89860000000000000001',
    auth: 'admin',
    bad: { url: '/api/card-admin/cards/123' },
  },
  {
    method: 'POST',
    path: '/api/card-admin/cards/{iccid}/status',
    url: '/api/card-admin/cards/89860000000000000001/status',
    auth: 'admin',
    bad: { payload: { action: 'burn' } },
  },
  // Multipart uploads: a wrong body is 415 / 50002 (sim-cards.test.ts), not a form error.
  { method: 'POST', path: '/api/card-admin/cards/batch', url: '/api/card-admin/cards/batch', auth: 'admin' },
  {
    method: 'GET',
    path: '/api/card-admin/card-logs',
    url: '/api/card-admin/card-logs',
    auth: 'admin',
    bad: { query: { current: '0' } },
  },
  {
    method: 'GET',
    path: '/api/card-admin/card-logs/{id}',
    url: '/api/card-admin/card-logs/999',
    auth: 'admin',
    bad: { url: '/api/card-admin/card-logs/x' },
  },
  {
    method: 'POST',
    path: '/api/card-admin/usage/import',
    url: '/api/card-admin/usage/import',
    auth: 'admin',
  },
  {
    method: 'GET',
    path: '/api/packages',
    url: '/api/packages',
    auth: 'user',
    bad: { query: { type: 'weekly' } },
  },
  {
    method: 'GET',
    path: '/api/packages/{id}',
    url: '/api/packages/999',
    auth: 'user',
    bad: { url: '/api/packages/x' },
  },
  {
    method: 'POST',
    path: '/api/packages',
    url: '/api/packages',
    auth: 'admin',
    bad: { payload: { name: '', price_fen: 1.5 } },
  },
  {
    method: 'PUT',
    path: '/api/packages/{id}',
    url: '/api/packages/999',
    auth: 'admin',
    bad: { payload: { price_fen: -1 } },
  },
  {
    method: 'DELETE',
    path: '/api/packages/{id}',
    url: '/api/packages/999',
    auth: 'admin',
    bad: { url: '/api/packages/x' },
  },
  {
    method: 'GET',
    path: '/api/orders',
    url: '/api/orders',
    auth: 'user',
    bad: { query: { status: 'lost' } },
  },
  {
    method: 'POST',
    path: '/api/orders',
    url: '/api/orders',
    auth: 'user',
    bad: { payload: { package_id: 1, iccids: [] } },
  },
  {
    method: 'GET',
    path: '/api/orders/{id}',
    url: '/api/orders/999',
    auth: 'user',
    bad: { url: '/api/orders/x' },
  },
  {
    method: 'POST',
    path: '/api/orders/{id}/pay',
    url: '/api/orders/999/pay',
    auth: 'user',
    bad: { url: '/api/orders/x/pay' },
  },
  {
    method: 'POST',
    path: '/api/orders/{id}/cancel',
    url: '/api/orders/999/cancel',
    auth: 'user',
    bad: { url: '/api/orders/0/cancel' },
  },
  {
    method: 'POST',
    path: '/api/orders/{id}/refund',
    url: '/api/orders/999/refund',
    auth: 'admin',
    bad: { payload: { note: 'n'.repeat(201) } },
  },
  {
    method: 'POST',
    path: '/api/orders/{id}/complete',
    url: '/api/orders/999/complete',
    auth: 'admin',
    bad: { payload: { note: 'n'.repeat(201) } },
  },
  { method: 'GET', path: '/api/balance', url: '/api/balance', auth: 'user', bad: { query: { uid: 'x' } } },
  {
    method: 'GET',
    path: '/api/balance/ledger',
    url: '/api/balance/ledger',
    auth: 'user',
    bad: { query: { kind: 'gift' } },
  },
  {
    method: 'POST',
    path: '/api/balance/topups',
    url: '/api/balance/topups',
    auth: 'admin',
    bad: { payload: { uid: 1, amount_fen: 0 } },
  },
  {
    method: 'GET',
    path: '/api/balance/accounts',
    url: '/api/balance/accounts',
    auth: 'admin',
    bad: { query: { per_page: '0' } },
  },
  // access keys (docs/open-api.md)
  {
    method: 'GET',
    path: '/api/access-keys',
    url: '/api/access-keys',
    auth: 'user',
    bad: { url: '/api/access-keys?per_page=0' },
  },
  {
    method: 'POST',
    path: '/api/access-keys',
    url: '/api/access-keys',
    auth: 'user',
    bad: { payload: { name: '', scopes: ['root'] } },
  },
  {
    method: 'GET',
    path: '/api/access-keys/{ak}',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA',
    auth: 'user',
    bad: { url: '/api/access-keys/ak-lower-case' },
  },
  {
    method: 'PUT',
    path: '/api/access-keys/{ak}',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA',
    auth: 'user',
    bad: { payload: { ip_allow: ['300.1.1.1'] } },
  },
  {
    method: 'DELETE',
    path: '/api/access-keys/{ak}',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA',
    auth: 'user',
    bad: { url: '/api/access-keys/AK1' },
  },
  {
    method: 'POST',
    path: '/api/access-keys/{ak}/rotate',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/rotate',
    auth: 'user',
    bad: { url: '/api/access-keys/AK1/rotate' },
  },
  {
    method: 'POST',
    path: '/api/access-keys/{ak}/verify-code',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/verify-code',
    auth: 'user',
    bad: { payload: { channel: 'fax' } },
  },
  {
    method: 'POST',
    path: '/api/access-keys/{ak}/verify',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/verify',
    auth: 'user',
    bad: { payload: { code: 'abc' } },
  },
  {
    method: 'GET',
    path: '/api/access-keys/{ak}/uses',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/uses',
    auth: 'user',
    bad: { url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/uses?per_page=1000' },
  },
  {
    method: 'GET',
    path: '/api/access-keys/{ak}/usage',
    url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/usage',
    auth: 'user',
    bad: { url: '/api/access-keys/AKAAAAAAAAAAAAAAAAAAAA/usage?days=365' },
  },
  // hardware info (docs/production.md)
  {
    method: 'GET',
    path: '/api/hw/values',
    url: '/api/hw/values',
    auth: 'admin',
    bad: { query: { type: 'cpu' } },
  },
  {
    method: 'POST',
    path: '/api/hw/values',
    url: '/api/hw/values',
    auth: 'admin',
    bad: { payload: { type: 'mcu', value: '' } },
  },
  {
    method: 'PUT',
    path: '/api/hw/values/{id}',
    url: '/api/hw/values/999999',
    auth: 'admin',
    bad: { payload: { value: 'v'.repeat(65) } },
  },
  {
    method: 'DELETE',
    path: '/api/hw/values/{id}',
    url: '/api/hw/values/999999',
    auth: 'admin',
    bad: { url: '/api/hw/values/x' },
  },
  {
    method: 'GET',
    path: '/api/hw/groups',
    url: '/api/hw/groups',
    auth: 'admin',
    bad: { query: { per_page: '0' } },
  },
  {
    method: 'POST',
    path: '/api/hw/groups',
    url: '/api/hw/groups',
    auth: 'admin',
    bad: { payload: { name: 'g', value_ids: [1, 1] } },
  },
  {
    method: 'GET',
    path: '/api/hw/groups/{id}',
    url: '/api/hw/groups/999999',
    auth: 'admin',
    bad: { url: '/api/hw/groups/0' },
  },
  {
    method: 'PUT',
    path: '/api/hw/groups/{id}',
    url: '/api/hw/groups/999999',
    auth: 'admin',
    bad: { payload: { value_ids: 'x' } },
  },
  {
    method: 'DELETE',
    path: '/api/hw/groups/{id}',
    url: '/api/hw/groups/999999',
    auth: 'admin',
    bad: { url: '/api/hw/groups/-1' },
  },
  {
    method: 'GET',
    path: '/api/hw/info',
    url: '/api/hw/info',
    auth: 'user',
    bad: { query: { task_id: 'x' } },
  },
  {
    method: 'GET',
    path: '/api/hw/info/export',
    url: '/api/hw/info/export',
    auth: 'user',
    bad: { query: { keyword: 'k'.repeat(65) } },
  },
  // production (docs/production.md)
  {
    method: 'GET',
    path: '/api/production/tasks',
    url: '/api/production/tasks',
    auth: 'admin',
    bad: { query: { state: 'running' } },
  },
  {
    method: 'POST',
    path: '/api/production/tasks',
    url: '/api/production/tasks',
    auth: 'admin',
    bad: { payload: { name: 'T', quantity: 10_001 } },
  },
  {
    method: 'GET',
    path: '/api/production/tasks/{id}',
    url: '/api/production/tasks/999999',
    auth: 'admin',
    bad: { url: '/api/production/tasks/x' },
  },
  {
    method: 'PUT',
    path: '/api/production/tasks/{id}',
    url: '/api/production/tasks/999999',
    auth: 'admin',
    bad: { payload: { name: '' } },
  },
  {
    method: 'DELETE',
    path: '/api/production/tasks/{id}',
    url: '/api/production/tasks/999999',
    auth: 'admin',
    bad: { url: '/api/production/tasks/0' },
  },
  {
    method: 'POST',
    path: '/api/production/tasks/{id}/start',
    url: '/api/production/tasks/999999/start',
    auth: 'admin',
    bad: { url: '/api/production/tasks/x/start' },
  },
  {
    method: 'POST',
    path: '/api/production/tasks/{id}/finish',
    url: '/api/production/tasks/999999/finish',
    auth: 'admin',
    bad: { url: '/api/production/tasks/x/finish' },
  },
  {
    method: 'POST',
    path: '/api/production/tasks/{id}/cancel',
    url: '/api/production/tasks/999999/cancel',
    auth: 'admin',
    bad: { url: '/api/production/tasks/x/cancel' },
  },
  {
    method: 'GET',
    path: '/api/production/tasks/{id}/labels',
    url: '/api/production/tasks/999999/labels',
    auth: 'admin',
    bad: { url: '/api/production/tasks/-2/labels' },
  },
  {
    method: 'GET',
    path: '/api/production/tasks/{id}/devices',
    url: '/api/production/tasks/999999/devices',
    auth: 'admin',
    bad: { url: '/api/production/tasks/1/devices?per_page=101' },
  },
  {
    method: 'GET',
    path: '/api/production/info',
    url: '/api/production/info',
    auth: 'admin',
    bad: { query: { tested: 'maybe' } },
  },
  // device admin: stock and shipping (docs/device-stock.md)
  {
    method: 'GET',
    path: '/api/device-stock',
    url: '/api/device-stock',
    auth: 'admin',
    bad: { query: { created_from: '2026-13' } },
  },
  {
    method: 'GET',
    path: '/api/device-stock/export',
    url: '/api/device-stock/export',
    auth: 'admin',
    bad: { query: { tested: 'maybe' } },
  },
  {
    method: 'POST',
    path: '/api/device-stock/range',
    url: '/api/device-stock/range',
    auth: 'admin',
    bad: { payload: { product_key: 'pk', prefix: 'A', from: 1, to: 10_001 } },
  },
  {
    method: 'POST',
    path: '/api/device-stock/check',
    url: '/api/device-stock/check',
    auth: 'admin',
    bad: { payload: { sns: [] } },
  },
  {
    method: 'GET',
    path: '/api/device-stock/shipments',
    url: '/api/device-stock/shipments',
    auth: 'admin',
    bad: { query: { per_page: '101' } },
  },
  {
    method: 'POST',
    path: '/api/device-stock/shipments',
    url: '/api/device-stock/shipments',
    auth: 'admin',
    bad: { payload: { customer: '', sns: ['A1'] } },
  },
  {
    method: 'GET',
    path: '/api/device-stock/shipments/{id}',
    url: '/api/device-stock/shipments/999999',
    auth: 'admin',
    bad: { url: '/api/device-stock/shipments/x' },
  },
  {
    method: 'GET',
    path: '/api/devices/{sn}/timeline',
    url: '/api/devices/NOPE1/timeline',
    auth: 'user',
    bad: { url: '/api/devices/%20bad/timeline' },
  },
  // productive groups (docs/production.md)
  {
    method: 'GET',
    path: '/api/production/groups',
    url: '/api/production/groups',
    auth: 'admin',
    bad: { query: { per_page: '500' } },
  },
  {
    method: 'POST',
    path: '/api/production/groups',
    url: '/api/production/groups',
    auth: 'admin',
    bad: { payload: { name: '' } },
  },
  {
    method: 'GET',
    path: '/api/production/groups/{id}',
    url: '/api/production/groups/999999',
    auth: 'admin',
    bad: { url: '/api/production/groups/x' },
  },
  {
    method: 'PUT',
    path: '/api/production/groups/{id}',
    url: '/api/production/groups/999999',
    auth: 'admin',
    bad: { payload: { name: 'n'.repeat(65) } },
  },
  {
    method: 'DELETE',
    path: '/api/production/groups/{id}',
    url: '/api/production/groups/999999',
    auth: 'admin',
    bad: { url: '/api/production/groups/0' },
  },
  {
    method: 'GET',
    path: '/api/production/groups/{id}/devices',
    url: '/api/production/groups/999999/devices',
    auth: 'admin',
    bad: { url: '/api/production/groups/1/devices?current=0' },
  },
  {
    method: 'POST',
    path: '/api/production/groups/{id}/devices',
    url: '/api/production/groups/999999/devices',
    auth: 'admin',
    bad: { payload: { task_id: 'x' } },
  },
  {
    method: 'POST',
    path: '/api/production/groups/{id}/devices/remove',
    url: '/api/production/groups/999999/devices/remove',
    auth: 'admin',
    bad: { payload: { sns: [] } },
  },
  // scripts (docs/scripts.md)
  { method: 'GET', path: '/api/scripts', url: '/api/scripts', auth: 'user', bad: { query: { state: 'on' } } },
  {
    method: 'POST',
    path: '/api/scripts',
    url: '/api/scripts',
    auth: 'user',
    bad: { payload: { name: '', source: '' } },
  },
  {
    method: 'POST',
    path: '/api/scripts/test-run',
    url: '/api/scripts/test-run',
    auth: 'user',
    bad: { payload: { source: 'function decode() {}', function: 'eval' } },
  },
  {
    method: 'GET',
    path: '/api/scripts/{id}',
    url: '/api/scripts/1',
    auth: 'user',
    bad: { url: '/api/scripts/abc' },
  },
  {
    method: 'PUT',
    path: '/api/scripts/{id}',
    url: '/api/scripts/1',
    auth: 'user',
    bad: { payload: { name: '' } },
  },
  {
    method: 'DELETE',
    path: '/api/scripts/{id}',
    url: '/api/scripts/1',
    auth: 'user',
    bad: { url: '/api/scripts/0' },
  },
  {
    method: 'PUT',
    path: '/api/scripts/{id}/state',
    url: '/api/scripts/1/state',
    auth: 'user',
    bad: { payload: { enabled: 'yes' } },
  },
  {
    method: 'PUT',
    path: '/api/scripts/{id}/binding',
    url: '/api/scripts/1/binding',
    auth: 'user',
    bad: { payload: { product_key: 'x' } },
  },
  {
    method: 'GET',
    path: '/api/scripts/{id}/versions',
    url: '/api/scripts/1/versions',
    auth: 'user',
    bad: { url: '/api/scripts/x/versions' },
  },
  {
    method: 'POST',
    path: '/api/scripts/{id}/versions/{version}/restore',
    url: '/api/scripts/1/versions/1/restore',
    auth: 'user',
    bad: { url: '/api/scripts/1/versions/0/restore' },
  },
  {
    method: 'GET',
    path: '/api/device-hosts',
    url: '/api/device-hosts',
    auth: 'admin',
    bad: { query: { protocol: 'http' } },
  },
  {
    method: 'POST',
    path: '/api/device-hosts',
    url: '/api/device-hosts',
    auth: 'admin',
    bad: { payload: { name: 'H', protocol: 'tcp', port: 70000 } },
  },
  { method: 'GET', path: '/api/device-hosts/addresses', url: '/api/device-hosts/addresses', auth: 'user' },
  {
    method: 'GET',
    path: '/api/device-hosts/{id}',
    url: '/api/device-hosts/1',
    auth: 'admin',
    bad: { url: '/api/device-hosts/x' },
  },
  {
    method: 'PUT',
    path: '/api/device-hosts/{id}',
    url: '/api/device-hosts/1',
    auth: 'admin',
    bad: { payload: { register_pattern: 'no capture group' } },
  },
  {
    method: 'DELETE',
    path: '/api/device-hosts/{id}',
    url: '/api/device-hosts/1',
    auth: 'admin',
    bad: { url: '/api/device-hosts/0' },
  },
];

let t: TestApp;
let userToken: string;
let adminToken: string;
let revokedToken: string;

beforeAll(async () => {
  t = await buildTestApp();
  userToken = (await t.createUser()).token;
  adminToken = await t.adminToken();
  const r = await t.createUser();
  await t.inject({ method: 'POST', url: '/api/auth/logout', token: r.token });
  revokedToken = r.token;
});
afterAll(() => t.close());

const label = (r: RouteCase) => `${r.method} ${r.path}`;

describe('every API route', () => {
  it('is listed here and in the OpenAPI document', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map(label).sort());
  });

  it.each(ROUTES.filter((r) => r.auth === 'user' || r.auth === 'admin').map((r) => [label(r), r] as const))(
    '%s requires sign-in (403 / 10102), also refusing a revoked token',
    async (_name, r) => {
      for (const token of [undefined, revokedToken]) {
        const res = await t.inject({ method: r.method, url: r.url, token, payload: r.bad?.payload });
        expect(res.statusCode).toBe(403);
        expect(errorOf(res).code).toBe(10102);
      }
    },
  );

  it.each(ROUTES.filter((r) => r.auth === 'admin').map((r) => [label(r), r] as const))(
    '%s refuses role user (400 / 10108) before looking at the input',
    async (_name, r) => {
      const res = await t.inject({
        method: r.method,
        url: r.bad?.url ?? r.url,
        token: userToken,
        payload: r.bad?.payload,
      });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).code).toBe(10108);
    },
  );

  it.each(ROUTES.filter((r) => r.bad).map((r) => [label(r), r] as const))(
    '%s rejects bad input (400 / 10113 with details)',
    async (_name, r) => {
      const token = r.auth === 'admin' ? adminToken : r.auth === 'user' ? userToken : undefined;
      const res = await t.inject({ method: r.method, url: r.url, token, ...r.bad });
      expect(res.statusCode).toBe(400);
      const err = errorOf(res);
      expect(err.code).toBe(10113);
      expect(Array.isArray(err.details) && err.details.length > 0).toBe(true);
      for (const d of err.details as { field: unknown; message: unknown }[]) {
        expect(typeof d.field).toBe('string');
        expect(typeof d.message).toBe('string');
      }
    },
  );
});

describe('update routes given nothing to update', () => {
  /** PUT routes whose OpenAPI entry has a JSON body: every update route. */
  async function updateRoutes(): Promise<RouteCase[]> {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
    };
    return ROUTES.filter(
      (r) =>
        (r.method as string) !== 'GET' &&
        r.method !== 'POST' &&
        r.method !== 'DELETE' &&
        doc.paths[r.path]?.[r.method.toLowerCase()]?.requestBody?.content?.['application/json'] !== undefined,
    );
  }

  it('every one answers {} and unknown-only fields with 400 / 10113 on body, never 500', async () => {
    const routes = await updateRoutes();
    expect(routes.length).toBeGreaterThan(20);
    const answers: string[] = [];
    for (const r of routes) {
      const token = r.auth === 'admin' ? adminToken : userToken;
      // Unknown keys named like Object.prototype's members (JSON text, so `__proto__` is sent as a key).
      for (const payload of [
        {},
        { not_a_field: 1 },
        '{"constructor":1,"toString":1}',
        '{"__proto__":{"a":1}}',
      ]) {
        const headers = { 'content-type': 'application/json' };
        const res = await t.inject({ method: r.method, url: r.url, token, payload, headers });
        const body = res.json() as { code?: number; details?: { field: string }[] };
        const fields = body.details?.map((d) => d.field) ?? [];
        // Routes with required fields name them instead; either way nothing reaches the service.
        const ok = res.statusCode === 400 && body.code === 10113 && fields.length > 0;
        if (!ok) answers.push(`${label(r)} ${JSON.stringify(payload)}: ${res.statusCode} ${res.body}`);
      }
    }
    expect(answers).toEqual([]);
  });

  it('leaves an existing product and device unchanged', async () => {
    const pk = `pk_empty_${Date.now()}`;
    const created = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: userToken,
      payload: { name: 'Empty', product_key: pk },
    });
    expect(created.statusCode, created.body).toBe(200);
    const sn = `SNEMPTY${Date.now()}`;
    const dev = await t.inject({
      method: 'POST',
      url: '/api/devices',
      token: userToken,
      payload: { product_key: pk, sn: [sn] },
    });
    expect(dev.statusCode, dev.body).toBe(200);
    for (const url of [`/api/products/${pk}`, `/api/devices/${sn}`]) {
      const before = (await t.inject({ method: 'GET', url, token: userToken })).json();
      const res = await t.inject({ method: 'PUT', url, token: userToken, payload: {} });
      expect(res.statusCode, res.body).toBe(400);
      expect(errorOf(res)).toMatchObject({
        code: 10113,
        details: [{ field: 'body', message: 'nothing to update: send at least one field' }],
      });
      expect((await t.inject({ method: 'GET', url, token: userToken })).json()).toEqual(before);
    }
  });
});

// Health checks, and firmware downloads (devices behind a carrier's NAT share addresses; the token is the gate).
const FLOOD_GUARDED = ROUTES.filter(
  (r) =>
    r.path !== '/api/health' &&
    r.path !== '/api/ota/download/{token}' &&
    // The broker calls these per connect and per publish, from one address.
    !r.path.startsWith('/api/broker-auth/'),
);

describe('flood guard', () => {
  let limited: TestApp;
  let token: string;
  let admin: string;
  beforeAll(async () => {
    limited = await buildTestApp({ config: { rateLimitPerMinute: 3 } });
    token = (await limited.createUser()).token;
    admin = await limited.adminToken();
    // Sign-in and register were just used; start the checks in a fresh minute and stay in it.
    limited.clock.toNextDay(60_000);
    limited.clock.freeze();
  });
  afterAll(() => limited.close());

  it.each(FLOOD_GUARDED.map((r) => [label(r), r] as const))(
    '%s answers 429 / 10104 with Retry-After past the per-minute limit',
    async (_name, r) => {
      const tok = r.auth === 'admin' ? admin : r.auth === 'user' ? token : undefined;
      const ip = `192.0.2.${ROUTES.indexOf(r) + 1}`;
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await limited.inject({
          method: r.method,
          url: r.bad?.url ?? r.url,
          token: tok,
          remoteAddress: ip,
          ...r.bad,
        });
        statuses.push(last.statusCode);
      }
      expect(statuses.slice(0, 3)).not.toContain(429);
      expect(last!.statusCode).toBe(429);
      expect(errorOf(last!).code).toBe(10104);
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    },
  );

  it('leaves health checks alone', async () => {
    for (let i = 0; i < 6; i++) {
      expect((await limited.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    }
  });
});
