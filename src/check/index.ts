import { loadConfig, type Config } from '../config/index.js';
import { DEFAULT_CONFIG_FILE } from '../config/locations.js';
import { messageOf } from '../errors.js';
import { CLOCK_UNSET, wallClockIsUnset } from '../clock.js';
import { buildTime } from '../version.js';
import { checkApi } from './api-check.js';
import { checkBle, type BleProbe } from './ble-check.js';
import { checkMqtt, type RefusedPublishes } from './mqtt-check.js';
import { bleStateOf, refusedPublishesOf, runningDaemonStatus } from './running-daemon.js';
import { fail, pass, reportOf, type CheckReport, type CheckResult } from './result.js';
import { checkPage, UNIT_CODE_FILE, withUnitCodeFile } from './page-check.js';
import { checkToken, UNIT_TOKEN_FILE } from './token-check.js';

export type { CheckName, CheckReport, CheckResult } from './result.js';
export { renderLine, renderReport } from './render.js';

export interface CheckOptions {
  env: NodeJS.ProcessEnv;
  /** --config */
  configFile?: string;
  /** The config file looked for when none is named; for tests. */
  defaultConfigFile?: string;
  /** The file the unit loads as its api-token credential; for tests. */
  unitTokenFile?: string;
  /** The file the unit loads as its installer-code credential; for tests. */
  unitCodeFile?: string;
  /** How the adapter is probed; the daemon's probe by default. */
  probeBle?: BleProbe;
  /** The publishes the broker refused the daemon; by default asked of the daemon over its control socket. */
  refusedPublishes?: RefusedPublishes;
}

/**
 * The installer's pre-flight. Reads what the daemon would read and asks
 * what the daemon would ask; needs no daemon, and never opens the store nor takes its lock.
 */
export async function runChecks(options: CheckOptions): Promise<CheckReport> {
  let config: Config;
  try {
    config = loadConfig({
      env: withUnitCodeFile(options.env, options.unitCodeFile ?? UNIT_CODE_FILE),
      flags: options.configFile === undefined ? {} : { config: options.configFile },
      ...(options.defaultConfigFile === undefined ? {} : { defaultConfigFile: options.defaultConfigFile }),
    });
  } catch (error) {
    const file = options.configFile ?? options.env.PANIC_PAIR_CONFIG ?? options.defaultConfigFile ?? DEFAULT_CONFIG_FILE;
    return reportOf([fail('configuration', messageOf(error), `correct that setting in ${file} or in the environment`)]);
  }

  const token = checkToken(config, options.unitTokenFile ?? UNIT_TOKEN_FILE);
  // A running daemon is asked once, for both: what it holds is read from it, never opened again.
  const daemon = options.probeBle !== undefined && options.refusedPublishes !== undefined ? Promise.resolve(undefined) : runningDaemonStatus(config);
  const refused: RefusedPublishes = options.refusedPublishes ?? (async () => {
    const report = await daemon;
    return report === undefined ? undefined : refusedPublishesOf(report);
  });
  const probe: BleProbe = options.probeBle ?? (async (adapter) => {
    const report = await daemon;
    return report === undefined ? (await import('./ble-probe.js')).probeBle(adapter) : bleStateOf(report);
  });
  const [api, mqtt, ble] = await Promise.all([checkApi(config, token.token), checkMqtt(config, refused), checkBle(config, probe)]);
  // Named only when wrong: a set clock is the usual case and needs no line.
  const clock = wallClockIsUnset(buildTime()) ? [fail('clock', CLOCK_UNSET, 'connect the hub to a network with NTP (systemd-timesyncd), or set the date by hand')] : [];
  return reportOf([checkConfiguration(config), ...clock, token.result, ...api, mqtt, ble, checkPage(config)]);
}

function checkConfiguration(config: Config): CheckResult {
  const file = config.configFile ?? DEFAULT_CONFIG_FILE;
  const missing = [
    config.apiUrl === undefined ? 'PANIC_PAIR_API_URL (apiUrl)' : undefined,
    config.customerId === undefined ? 'PANIC_PAIR_CUSTOMER_ID (customerId)' : undefined,
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0) {
    return fail('configuration', `${missing.join(' and ')} not set; the daemon needs ${missing.length === 1 ? 'it' : 'both'}`, `set ${missing.length === 1 ? 'it' : 'them'} in ${file}`);
  }
  const from = config.configFile === undefined ? 'no config file, the environment only' : config.configFile;
  return pass('configuration', `${from}: customer ${config.customerId}, state in ${config.stateDir}`);
}
