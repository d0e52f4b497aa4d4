import type { AccessScope } from '@cellhub/contract/access';

/**
 * The open API: every route an access key may call, as `METHOD /api/path/:param` (Fastify's route pattern), with
 * the scope it needs. A signed request to a route missing here is refused with 10227 whatever the key's scopes;
 * a route here still goes through the route's own rules (lib/authz.ts), with the key's owner as the actor and the
 * key's scopes capping what the owner may do (a read-only key sees devices but cannot command them).
 * Admin routes are never here: an actor with scopes is refused them (requireAdmin). docs/open-api.md lists this
 * table, and the OpenAPI document marks each route with its scope (plugins/docs.ts).
 */
export const OPEN_ROUTES: Readonly<Record<string, AccessScope>> = {
  // devices: reading
  'GET /api/devices': 'devices:read',
  'GET /api/devices/:sn': 'devices:read',
  'GET /api/devices/:sn/properties': 'devices:read',
  'GET /api/devices/:sn/properties/series': 'devices:read',
  'GET /api/devices/:sn/commands': 'devices:read',
  'GET /api/devices/:sn/config': 'devices:read',
  'GET /api/devices/:sn/logs': 'devices:read',
  'GET /api/devices/:sn/drops': 'devices:read',
  'GET /api/devices/:sn/events': 'devices:read',
  'GET /api/devices/:sn/thing-model': 'devices:read',
  'GET /api/devices/:sn/raw': 'devices:read',
  'GET /api/devices/:sn/timeline': 'devices:read',
  // devices: commands and configuration
  'POST /api/devices/:sn/commands': 'devices:control',
  'POST /api/devices/:sn/commands/:id/cancel': 'devices:control',
  'PUT /api/devices/:sn/config': 'devices:control',
  'POST /api/devices/:sn/raw': 'devices:control',
  // devices: create, change, bind, delete
  'POST /api/devices': 'devices:write',
  'PUT /api/devices/:sn': 'devices:write',
  'DELETE /api/devices/:sn': 'devices:write',
  'POST /api/devices/bind': 'devices:write',
  'POST /api/devices/:sn/unbind': 'devices:write',
  // devices: the command groups of a device's product (offered to whoever may send them), and sending one
  'GET /api/devices/:sn/command-groups': 'devices:control',
  'POST /api/devices/:sn/command-groups/commands/:cmdId/send': 'devices:control',
  // gateway rules: of the gateways the owner may view (read) or manage (write), with their sub-devices
  'GET /api/gateway-rules': 'devices:read',
  'GET /api/gateway-rules/:id': 'devices:read',
  'POST /api/gateway-rules': 'devices:write',
  'PUT /api/gateway-rules/:id': 'devices:write',
  'DELETE /api/gateway-rules/:id': 'devices:write',
  'POST /api/gateway-rules/:id/bind': 'devices:write',
  'POST /api/gateway-rules/:id/unbind': 'devices:write',
  // OTA: firmware the caller may use, and tasks over their devices
  'GET /api/firmware/versions/usable': 'ota',
  'GET /api/ota/tasks': 'ota',
  'POST /api/ota/tasks': 'ota',
  'POST /api/ota/tasks/preview': 'ota',
  'GET /api/ota/tasks/:id': 'ota',
  'DELETE /api/ota/tasks/:id': 'ota',
  'GET /api/ota/tasks/:id/devices': 'ota',
  'POST /api/ota/tasks/:id/start': 'ota',
  'POST /api/ota/tasks/:id/pause': 'ota',
  'POST /api/ota/tasks/:id/cancel': 'ota',
  // SIM cards, packages, orders
  'GET /api/cards': 'sim',
  'GET /api/cards/:iccid': 'sim',
  'GET /api/cards/:iccid/usage': 'sim',
  'GET /api/cards/:iccid/orders': 'sim',
  'GET /api/packages': 'sim',
  'GET /api/packages/:id': 'sim',
  'GET /api/orders': 'sim',
  'POST /api/orders': 'sim',
  'GET /api/orders/:id': 'sim',
  'POST /api/orders/:id/pay': 'sim',
  'POST /api/orders/:id/cancel': 'sim',
  // alerts: triggers, rules, contacts, history
  'GET /api/alert/triggers': 'alerts',
  'POST /api/alert/triggers': 'alerts',
  'GET /api/alert/triggers/:id': 'alerts',
  'PUT /api/alert/triggers/:id': 'alerts',
  'PUT /api/alert/triggers/:id/enable': 'alerts',
  'DELETE /api/alert/triggers/:id': 'alerts',
  'GET /api/alert/configs': 'alerts',
  'POST /api/alert/configs': 'alerts',
  'GET /api/alert/configs/:id': 'alerts',
  'PUT /api/alert/configs/:id': 'alerts',
  'DELETE /api/alert/configs/:id': 'alerts',
  'GET /api/alert/contacts': 'alerts',
  'POST /api/alert/contacts': 'alerts',
  'GET /api/alert/contacts/:id': 'alerts',
  'PUT /api/alert/contacts/:id': 'alerts',
  'DELETE /api/alert/contacts/:id': 'alerts',
  'GET /api/alert/history': 'alerts',
  'POST /api/alert/history/:id/ack': 'alerts',
  'POST /api/alert/history/ack': 'alerts',
};

/**
 * Routes that touch devices (a `:sn` in the path, under /api/devices, or `sn` / `sns` / `targets` in the body or
 * query) and are closed to keys on purpose, with the reason. access-keys.test.ts fails when a signed-in route that
 * touches devices is in neither table, so every new one is decided here.
 */
const TUNNELS_CLOSED =
  "a tunnel opens a door into the device's LAN for a person's address: opened in the console, not by keys";

export const CLOSED_TO_KEYS: Readonly<Record<string, string>> = {
  'POST /api/devices/import': 'a multipart upload: the signature covers JSON bodies only',
  'POST /api/user-commands/:id/send': 'saved commands are managed in the console, not by keys',
  'POST /api/config-templates/:id/apply': 'configuration templates are managed in the console, not by keys',
  'POST /api/shares': "sharing is the owner's own decision",
  'POST /api/share-links': "sharing is the owner's own decision",
  'GET /api/shares/outgoing': 'shares are managed in the console, not by keys',
  'GET /api/shares/incoming': 'shares are managed in the console, not by keys',
  'GET /api/devices/:sn/modbus/variables':
    'Modbus polling status, test reads and writes are console tools for now',
  'POST /api/devices/:sn/modbus/variables/:tag/read':
    'Modbus polling status, test reads and writes are console tools for now',
  'POST /api/devices/:sn/modbus/variables/:tag/write':
    'Modbus polling status, test reads and writes are console tools for now',
  'POST /api/scenes/:id/widgets/:widgetId/write':
    'scenes are console views; keys write through the device routes',
  'POST /api/scenes/from-model': 'scenes are console views; keys read and write through the device routes',
  'POST /api/scripts/test-run': 'scripts are written and tried in the console, not by keys',
  'GET /api/devices/:sn/data-template': 'data templates are managed in the console, not by keys',
  'PUT /api/devices/:sn/data-template': 'data templates are managed in the console, not by keys',
  'DELETE /api/devices/:sn/data-template': 'data templates are managed in the console, not by keys',
  'POST /api/data-templates/:id/devices': 'data templates are managed in the console, not by keys',
  'POST /api/forwarding': 'forwarding rules are managed in the console, not by keys',
  'PUT /api/forwarding/:id': 'forwarding rules are managed in the console, not by keys',
  'GET /api/devices/:sn/tunnels': TUNNELS_CLOSED,
  'POST /api/devices/:sn/tunnels': TUNNELS_CLOSED,
  'POST /api/devices/:sn/tunnels/:id/close': TUNNELS_CLOSED,
};

/** The scope a route needs from a key (HEAD as its GET), or undefined when keys may not call it. */
export function openRouteScope(method: string, routeUrl: string | undefined): AccessScope | undefined {
  if (!routeUrl) return undefined;
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return OPEN_ROUTES[`${m} ${routeUrl}`];
}
