import { loadConfig, type Config, type SettingKey } from '../../config/index.js';
import { TOKEN_CREDENTIAL_NAME } from '../../config/locations.js';
import { startDaemon, type RunningDaemon } from '../../daemon/daemon.js';
import { createNotifier, startHeartbeat, systemdStatusOf } from '../../daemon/sd-notify.js';
import { errorKindOf, messageOf, PanicPairError } from '../../errors.js';
import { createLogger, type Logger } from '../../log/logger.js';
import { RateLimitedWarning } from '../../log/rate-limited.js';
import { captureConsole } from '../../log/console-capture.js';

/** The flags commander parsed: one a setting, named by the setting's key. */
export type RunOptions = Partial<Record<SettingKey, string | boolean>>;

/** `panic-pair run`: the daemon in the foreground, until SIGTERM or SIGINT. */
export async function runCommand(options: RunOptions): Promise<void> {
  const load = (): Config => loadConfig({ env: process.env, flags: options, require: ['apiUrl', 'customerId', 'token', 'mqttPassword'] });
  const config = load();
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  captureConsole(logger);
  const notifyProblems = new RateLimitedWarning({ logger, summary: (n) => `${n} more sd_notify failures` });
  const notifier = createNotifier(process.env, { onError: (error) => notifyProblems.warn({ err: messageOf(error) }, 'sd_notify failed') });
  // Bounded: systemd-notify gives up on its own after a few seconds.
  const notified = (): Promise<unknown> => Promise.race([notifier.settled(), new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);

  process.on('unhandledRejection', (reason) => logger.error({ err: messageOf(reason) }, 'unhandled rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: messageOf(error), stack: error.stack }, 'uncaught exception; exiting so that systemd restarts the daemon');
    logger.flush();
    process.exit(1);
  });

  let daemon: RunningDaemon | undefined;
  // Pinging already while starting: a long store recovery is not a stuck event loop.
  const heartbeat = startHeartbeat(notifier, () => (daemon === undefined ? 'starting' : systemdStatusOf(daemon.status())));
  try {
    daemon = await startDaemon(config, logger);
  } catch (error) {
    heartbeat.stop();
    // A setting refused (a loose secret file, a missing certificate) is printed on stderr like one
    // refused before the logger existed (the token, the MQTT password), not also logged on stdout.
    if (errorKindOf(error) !== 'config') logger.fatal({ err: messageOf(error) }, 'could not start');
    logger.flush();
    notifier.status(`could not start: ${messageOf(error)}`);
    await notified();
    // Its own exit status: the judge of an update rolls back a release that refuses the store the
    // version before wrote, at once and saying so (src/update/verdict.ts).
    if (errorKindOf(error) === 'store') throw new PanicPairError('store-refused', messageOf(error), { cause: error });
    throw error;
  }

  const running = daemon;
  notifier.ready(systemdStatusOf(running.status()));
  // A link made shows in `systemctl status` within a second, not at the next watchdog ping.
  running.engine.onDevice(() => heartbeat.changed());
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received');
    notifier.stopping();
    const exit = async (code: number): Promise<never> => {
      heartbeat.stop();
      logger.flush();
      await notified();
      process.exit(code);
    };
    void running.stop().then(
      () => exit(0),
      (error: unknown) => {
        logger.error({ err: messageOf(error) }, 'shutdown failed');
        return exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('SIGHUP', () => {
    reload(running, config, load, logger);
    notifier.status(systemdStatusOf(running.status()));
  });
}

/** Settings SIGHUP applies; every other change waits for a restart. */
const RELOADED: ReadonlySet<string> = new Set(['token', 'logLevel', 'configFile']);

/** SIGHUP: the config file and the token read again; the log level and token applied at once. */
function reload(running: RunningDaemon, started: Config, load: () => Config, logger: Logger): void {
  let next: Config;
  try {
    next = load();
  } catch (error) {
    logger.error({ err: messageOf(error) }, 'reload failed: the configuration cannot be read; everything in use is kept');
    return;
  }
  logger.level = next.logLevel;
  logger.info({ logLevel: next.logLevel, configFile: next.configFile }, 'reload: configuration read again');
  const keys = new Set<string>([...Object.keys(started), ...Object.keys(next)]);
  const waiting = [...keys].filter(
    (key) => !RELOADED.has(key) && JSON.stringify(started[key as keyof Config]) !== JSON.stringify(next[key as keyof Config]),
  );
  if (waiting.length > 0) logger.warn({ settings: waiting }, 'reload: these changes take effect at the next restart (systemctl restart panic-pair)');
  running.reload(next);
  // systemd copies a LoadCredential= file only when the service starts: the copy read again here
  // is the old token even when the file behind it was rotated. Said at the moment of the reload,
  // where the operator looks.
  if (next.token?.kind === 'credential') logger.warn({ credential: TOKEN_CREDENTIAL_NAME }, CREDENTIAL_RELOAD_NOTICE);
}

export const CREDENTIAL_RELOAD_NOTICE =
  'reload: the API token comes from the systemd credential, which systemd copies only at start; a rotated token needs `systemctl restart panic-pair`';
