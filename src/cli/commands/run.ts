import { loadConfig, type SettingKey } from '../../config/index.js';
import { startDaemon } from '../../daemon/daemon.js';
import { messageOf } from '../../errors.js';
import { createLogger } from '../../log/logger.js';

export interface RunOptions {
  config?: string;
  apiUrl?: string;
  customerId?: string;
  stateDir?: string;
  runtimeDir?: string;
  mqttUrl?: string;
  mqttPrefix?: string;
  ble?: string;
  autoPair?: boolean;
  logLevel?: string;
}

/** `panic-pair run`: the daemon in the foreground, until SIGTERM or SIGINT. */
export async function runCommand(options: RunOptions): Promise<void> {
  const flags: Partial<Record<SettingKey, string | number | boolean>> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) flags[key as SettingKey] = value as string | boolean;
  }
  const config = loadConfig({ env: process.env, flags, require: ['apiUrl', 'customerId', 'token'] });
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });

  process.on('unhandledRejection', (reason) => logger.error({ err: messageOf(reason) }, 'unhandled rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: messageOf(error), stack: error.stack }, 'uncaught exception; exiting so that systemd restarts the daemon');
    logger.flush();
    process.exit(1);
  });

  let daemon;
  try {
    daemon = await startDaemon(config, logger);
  } catch (error) {
    logger.fatal({ err: messageOf(error) }, 'could not start');
    logger.flush();
    throw error;
  }

  const running = daemon;
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received');
    void running.stop().then(
      () => {
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: messageOf(error) }, 'shutdown failed');
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('SIGHUP', () => running.reload());
}
