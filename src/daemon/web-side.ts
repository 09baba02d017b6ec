import { join } from 'node:path';
import type { Config } from '../config/index.js';
import type { WebSecrets } from '../config/web.js';
import type { ControlHandlers } from '../control/handlers.js';
import type { Logger } from '../log/logger.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { WebPage } from '../web/index.js';

/**
 * The installer's page, when PANIC_PAIR_WEB_LISTEN is set. Imported only then, so a hub without
 * the page loads none of its code.
 */
export async function startWebSide(options: {
  config: Config;
  secrets: WebSecrets | undefined;
  engine: PairingEngine;
  handlers: ControlHandlers;
  logger: Logger;
}): Promise<WebPage | undefined> {
  const { config, secrets, engine, handlers, logger } = options;
  if (config.web === undefined || secrets === undefined) return undefined;
  const { startWebPage } = await import('../web/index.js');
  return startWebPage({
    config: config.web,
    secrets,
    sessionsFile: join(config.stateDir, 'web-sessions.json'),
    logger,
    handlers: {
      ...handlers,
      heard: (withinMs) => engine.heard(withinMs),
      check: async () => {
        const { runChecks } = await import('../check/index.js');
        // The adapter is the daemon's already: its state is read, not probed a second time.
        const probeBle = async () => {
          const { ble, bleReason } = handlers.status();
          return bleReason === undefined ? { state: ble } : { state: ble, reason: bleReason };
        };
        // The broker's refusals of this daemon's publishes are its own to read, not to ask itself
        // for over its control socket.
        const refusedPublishes = async () => handlers.status().mqttRefusals?.publishes ?? [];
        return runChecks({ env: process.env, ...(config.configFile === undefined ? {} : { configFile: config.configFile }), probeBle, refusedPublishes });
      },
      onChange: (listener) => {
        engine.onSighting(() => listener());
        engine.onDevice(() => listener());
        engine.onEntitlement(() => listener());
      },
    },
  });
}
