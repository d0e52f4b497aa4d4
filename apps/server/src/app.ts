import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { type Config, loadConfig } from './config';
import { openDatabase } from './db/client';
import { AppError, formError } from './lib/app-error';
import { jsonDepthOver, TOO_DEEP_MESSAGE } from './lib/json-depth';
import { createSecretBox } from './lib/crypto';
import { withSafeErrorLogs } from './lib/log-safe-error';
import { offlineLink } from './gateway/device-link';
import { DeviceGateway } from './gateway/device-gateway';
import { gatewayPlugin } from './gateway/gateway.plugin';
import type { Deps } from './lib/deps';
import type { SmsProvider } from './lib/sms';
import { alertsPlugin } from './modules/alerts/alerts.plugin';
import { brokerAuthPlugin } from './modules/broker-auth/broker-auth.plugin';
import { accessKeysPlugin } from './modules/access-keys/access-keys.plugin';
import { accessKeysRoutes } from './modules/access-keys/access-keys.routes';
import { alertsRoutes } from './modules/alerts/alerts.routes';
import { applicationsRoutes } from './modules/applications/applications.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { commandsPlugin } from './modules/commands/commands.plugin';
import { commandGroupsRoutes } from './modules/command-groups/command-groups.routes';
import { scriptsRoutes } from './modules/scripts/scripts.routes';
import { dataTemplatesRoutes } from './modules/data-templates/data-templates.routes';
import { scenesRoutes } from './modules/scenes/scenes.routes';
import { forwardingPlugin } from './modules/forwarding/forwarding.plugin';
import { forwardingRoutes } from './modules/forwarding/forwarding.routes';
import { dataTransmitPlugin } from './modules/data-transmit/data-transmit.plugin';
import { dataTransmitRoutes } from './modules/data-transmit/data-transmit.routes';
import { gatewayRulesRoutes } from './modules/gateway-rules/gateway-rules.routes';
import { subDeviceLink } from './modules/gateway-rules/sub-devices';
import { DeviceHostManager } from './modules/device-hosts/device-host-manager';
import { deviceHostsPlugin } from './modules/device-hosts/device-hosts.plugin';
import { tunnelsPlugin } from './modules/tunnels/tunnels.plugin';
import { filesPlugin } from './modules/files/files.plugin';
import { telemetryPlugin } from './modules/telemetry/telemetry.plugin';
import { tunnelsRoutes } from './modules/tunnels/tunnels.routes';
import { deviceHostsRoutes } from './modules/device-hosts/device-hosts.routes';
import { commandsRoutes } from './modules/commands/commands.routes';
import { modbusPollingPlugin } from './modules/modbus-polling/modbus-polling.plugin';
import { modbusPollingRoutes } from './modules/modbus-polling/modbus-polling.routes';
import { configTemplatesRoutes } from './modules/config-templates/config-templates.routes';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes';
import { PastDayCache } from './modules/dashboard/past-day-cache';
import { deviceConfigRoutes } from './modules/device-config/device-config.routes';
import { deviceDropsRoutes } from './modules/device-drops/device-drops.routes';
import { deviceStockRoutes } from './modules/device-stock/device-stock.routes';
import { deviceLogRoutes } from './modules/device-log/device-log.routes';
import { DeviceCountCache } from './modules/devices/device-count-cache';
import { devicesRoutes } from './modules/devices/devices.routes';
import { firmwareRoutes } from './modules/firmware/firmware.routes';
import { otaPlugin } from './modules/ota/ota.plugin';
import { otaRoutes } from './modules/ota/ota.routes';
import { healthRoutes } from './modules/health/health.routes';
import { hardwareRoutes } from './modules/hardware/hardware.routes';
import { inboxRoutes } from './modules/inbox/inbox.routes';
import { checkSecretKey } from './modules/system-settings/secret-key-check';
import { ChannelSmsProvider } from './modules/notify/channel-sms-provider';
import { notifyPlugin } from './modules/notify/notify.plugin';
import { platformsRoutes } from './modules/platforms/platforms.routes';
import { productFeaturesRoutes } from './modules/product-features/product-features.routes';
import { productionRoutes } from './modules/production/production.routes';
import { productsRoutes } from './modules/products/products.routes';
import { simPlugin } from './modules/sim/sim.plugin';
import { purgeExpired } from './modules/rate-limit/rate-limit.service';
import { telemetryRoutes } from './modules/telemetry/telemetry.routes';
import { userCommandsRoutes } from './modules/user-commands/user-commands.routes';
import { thingModelRoutes } from './modules/thing-model/thing-model.routes';
import { deviceEventsRoutes } from './modules/thing-model/device-events.routes';
import { ShareAudienceCache } from './modules/shares/share-audience';
import { sharesPlugin } from './modules/shares/shares.plugin';
import { sharesRoutes } from './modules/shares/shares.routes';
import { userRoutes } from './modules/user/user.routes';
import { usersRoutes } from './modules/users/users.routes';
import { ensureInitialAdmin } from './modules/users/users.service';
import { mapTilesRoutes } from './modules/system-settings/map-tiles.routes';
import { systemSettingsRoutes } from './modules/system-settings/system-settings.routes';
import { authPlugin } from './plugins/auth';
import { brokerPlugin } from './plugins/broker';
import { compressionPlugin } from './plugins/compression';
import { consolePlugin } from './plugins/console';
import { docsPlugin } from './plugins/docs';
import { clientErrorHandler, errorHandlerPlugin, sendAppError } from './plugins/error-handler';
import { inputGuardPlugin } from './plugins/input-guard';
import './plugins/fastify-types';
import { applySecurityHeaders, securityHeadersPlugin } from './plugins/security-headers';
import { createEventBus } from './realtime/event-bus';
import { createChannels } from './realtime/pg-channels';
import { realtimePlugin } from './realtime/realtime.plugin';

export interface BuildAppOptions {
  /** Wins over the environment. */
  config?: Partial<Config>;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  smsProvider?: SmsProvider;
  /** Fastify's logger option; defaults to pino at LOG_LEVEL. */
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  /** Tests: an in-memory (`memory://`) database starts from this PGlite dump of an already migrated one. */
  pgliteTemplate?: Blob;
}

/**
 * Builds the whole server: opens and migrates the database, creates the first admin, registers plugins and routes.
 * The MQTT broker starts when the app becomes ready (app.ready() or listen()).
 */
export async function buildApp(options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const config = loadConfig(options.env ?? process.env, options.config);
  const app = Fastify({
    // Logged errors never carry statement parameters (lib/log-safe-error.ts).
    logger: withSafeErrorLogs(options.logger ?? { level: config.logLevel }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // Error bodies are ours; the request id is in the logs.
    return503OnClosing: true,
    // Header overflow (431), timeouts and malformed HTTP answer the error body too.
    clientErrorHandler,
    // Malformed URLs and oversized path parameters are refused by the router before any hook runs.
    frameworkErrors: (err, _request, reply) => {
      applySecurityHeaders(reply);
      const field = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'params' : 'url';
      sendAppError(reply, new AppError(10113, 400, undefined, [{ field, message: err.message }]));
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // An empty JSON body on a route without one (sign-out, menu) is not an error; malformed JSON is (40003), and so
  // is nesting no route takes (10113 on `body`, json-depth.ts).
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new AppError(40003), undefined);
    }
    if (jsonDepthOver(value)) return done(formError('body', TOO_DEEP_MESSAGE), undefined);
    done(null, value);
  });

  const database = await openDatabase(config.databaseUrl, config.dataDir, {
    pgliteLoadDataDir: config.databaseUrl === 'memory://' ? options.pgliteTemplate : undefined,
  });
  try {
    await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  // PGlite lives in one process, so only real PostgreSQL needs LISTEN/NOTIFY between instances.
  const channels = createChannels({ driver: database.driver, url: config.databaseUrl, log: app.log });
  const deps: Deps = {
    db: database.db,
    config,
    box: createSecretBox(config.secretKey),
    // The SMS channel of the system settings (log provider until an admin picks Aliyun or Tencent).
    sms: options.smsProvider ?? new ChannelSmsProvider(() => deps),
    log: app.log,
    now: options.now ?? (() => new Date()),
    channels,
    events: createEventBus({ log: app.log, channels }),
    link: offlineLink,
    caches: {
      deviceCounts: new DeviceCountCache(config.deviceListCountCacheMs),
      dashboardDays: new PastDayCache(),
      shares: new ShareAudienceCache(),
    },
  };
  // The gateway is the services' device link from the start: until the broker attaches it answers 20401, as
  // offlineLink would. Nothing replaces the link later.
  const gateway = new DeviceGateway(deps);
  // Devices registered on a device host (socket-mode DTUs) take their downlinks on their socket; the rest on MQTT.
  const deviceHosts = new DeviceHostManager(deps, gateway);
  // Sub-devices take their downlinks through their gateway (modules/gateway-rules).
  deps.link = subDeviceLink(deviceHosts.link(gateway), gateway.subs, gateway.telemetry.scripts);
  app.decorate('deps', deps);

  const purge = setInterval(() => {
    purgeExpired(deps.db, deps.now()).catch((err: unknown) =>
      app.log.warn({ err }, 'rate limit purge failed'),
    );
  }, 10 * 60_000);
  purge.unref();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    await deps.events.close();
    await channels.close();
    await database.close();
  });

  try {
    await checkSecretKey(deps.db, deps.box);
    const admin = await ensureInitialAdmin(deps);
    if (admin.generatedPassword) {
      process.stdout.write(
        `\n  Cellhub: created the account "admin" with password ${admin.generatedPassword}\n` +
          `  (also written to ${config.dataDir}/initial-admin-password.txt). Change it after signing in.\n\n`,
      );
    }
    await app.register(errorHandlerPlugin);
    await app.register(securityHeadersPlugin);
    await app.register(compressionPlugin);
    await app.register(inputGuardPlugin);
    await app.register(docsPlugin);
    await app.register(authPlugin);
    await app.register(brokerPlugin, {
      mqttPort: config.mqttPort,
      mqttUrl: config.mqttUrl,
      host: config.host,
      dataDir: config.dataDir,
      onPacketTooLarge: (sn) => gateway.packetTooLarge(sn),
    });
    await app.register(gatewayPlugin, { gateway });
    await app.register(deviceHostsPlugin, { manager: deviceHosts });
    await app.register(realtimePlugin);
    await app.register(commandsPlugin);
    await app.register(notifyPlugin);
    await app.register(otaPlugin);
    await app.register(modbusPollingPlugin);
    await app.register(alertsPlugin);
    await app.register(forwardingPlugin);
    await app.register(sharesPlugin);
    await app.register(dataTransmitPlugin);
    await app.register(tunnelsPlugin);
    await app.register(brokerAuthPlugin);
    await app.register(telemetryPlugin);
    await app.register(filesPlugin);
    await app.register(healthRoutes);
    await app.register(authRoutes);
    await app.register(userRoutes);
    await app.register(usersRoutes);
    await app.register(productsRoutes);
    await app.register(platformsRoutes);
    await app.register(devicesRoutes);
    await app.register(commandsRoutes);
    await app.register(deviceConfigRoutes);
    await app.register(telemetryRoutes);
    await app.register(deviceLogRoutes);
    await app.register(deviceDropsRoutes);
    await app.register(userCommandsRoutes);
    await app.register(configTemplatesRoutes);
    await app.register(dashboardRoutes);
    await app.register(inboxRoutes);
    await app.register(systemSettingsRoutes);
    await app.register(mapTilesRoutes);
    await app.register(firmwareRoutes);
    await app.register(simPlugin, { syncTickMs: config.simSyncTickMs });
    await app.register(hardwareRoutes);
    await app.register(productionRoutes);
    await app.register(deviceStockRoutes);
    await app.register(otaRoutes);
    await app.register(alertsRoutes);
    await app.register(applicationsRoutes);
    await app.register(accessKeysPlugin);
    await app.register(accessKeysRoutes);
    await app.register(sharesRoutes);
    await app.register(commandGroupsRoutes);
    await app.register(scriptsRoutes);
    await app.register(thingModelRoutes);
    await app.register(deviceEventsRoutes);
    await app.register(productFeaturesRoutes);
    await app.register(dataTemplatesRoutes);
    await app.register(modbusPollingRoutes);
    await app.register(scenesRoutes);
    await app.register(forwardingRoutes);
    await app.register(dataTransmitRoutes);
    await app.register(gatewayRulesRoutes);
    await app.register(deviceHostsRoutes);
    await app.register(tunnelsRoutes);
    await app.register(consolePlugin, { dist: config.consoleDist, sourceMaps: config.consoleSourceMaps });
    // Last of the onReady hooks (they run in the order added): every engine above has started, so devices may now
    // be answered and their messages taken (DeviceGateway.opened).
    app.addHook('onReady', async () => gateway.open());
  } catch (err) {
    // A plugin that failed to load (e.g. MQTT_PORT taken) leaves nothing open behind it.
    clearInterval(purge);
    await app.close().catch(() => undefined);
    await gateway.close().catch(() => undefined);
    await deps.events.close().catch(() => undefined);
    await channels.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
  return app;
}
