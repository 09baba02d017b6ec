// Builds the typed Config from, in order of precedence: command-line flags, the environment, the
// JSON config file, the defaults. The only reader of process.env and of the config file.
import envVar from 'env-var';
import { PanicPairError } from '../errors.js';
import { readConfigFile, locateConfigFile, type ConfigFile } from './config-file.js';
import { checkFileKeys } from './file-keys.js';
import { describeIssues } from './issues.js';
import { defaultRuntimeDir, defaultStateDir, presentText, resolveFromFile } from './locations.js';
import type { Origin } from './origins.js';
import { defaultProfiles } from './profile.js';
import { settingsSchema, type Config, type Settings } from './schema.js';
import { PROFILES_FILE_KEY, SETTINGS, SETTING_KEYS, type SettingKey } from './settings.js';
import { readMqttPassword } from './secret-file.js';
import { readToken, tokenSourceOf } from './token.js';
import type { WebConfig } from './web.js';

export type FlagValues = Partial<Record<SettingKey, string | number | boolean>>;
export type RequiredSetting = 'apiUrl' | 'customerId' | 'token' | 'mqttPassword';

export interface LoadOptions {
  /** The environment to read; process.env when left out. */
  env?: NodeJS.ProcessEnv;
  /** Values of command-line flags, by setting key. */
  flags?: FlagValues;
  /** What the command cannot work without (`run` needs all three). */
  require?: RequiredSetting[];
  /** The config file looked for when none is named; for tests. */
  defaultConfigFile?: string;
}

type Lookup = (name: string) => string | undefined;

export function loadConfig(options: LoadOptions = {}): Config {
  const environment = envVar.from(options.env ?? process.env);
  const lookup: Lookup = (name) => presentText(environment.get(name).asString());
  const flags = checkedFlags(options.flags ?? {});

  const location = locateConfigFile(flags.config, lookup(SETTINGS.config.env), options.defaultConfigFile);
  const file = location === undefined ? undefined : readConfigFile(location);
  if (file !== undefined) checkFileKeys(file);

  const { values, origins } = gather(flags, lookup, file);
  const result = settingsSchema.safeParse(values);
  if (!result.success) {
    throw new PanicPairError('config', describeIssues(result.error.issues, { values, origins, file: file?.path }));
  }
  const config = assemble(result.data, lookup, file);
  requireSettings(config, options.require ?? []);
  return config;
}

function checkedFlags(flags: FlagValues): FlagValues {
  for (const [key, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    if (!(key in SETTINGS)) throw new PanicPairError('config', `unknown setting "${key}" given as a flag`);
    const setting = SETTINGS[key as SettingKey];
    if (setting.flag === null) {
      throw new PanicPairError('config', `${setting.env} cannot be given as a flag (the process list would show it)`);
    }
  }
  return flags;
}

/** Each setting's value from the first source that has it, and which source that was. */
function gather(flags: FlagValues, lookup: Lookup, file: ConfigFile | undefined) {
  const values: Record<string, unknown> = {};
  const origins = new Map<SettingKey, Origin>();
  const take = (key: SettingKey, value: unknown, origin: Origin): void => {
    values[key] = value;
    origins.set(key, origin);
  };
  for (const key of SETTING_KEYS) {
    if (key === 'config') continue;
    const setting = SETTINGS[key];
    const flag = flags[key];
    const fromEnv = lookup(setting.env);
    const fromFile = setting.fileKey === null ? undefined : file?.values[setting.fileKey];
    if (isGiven(flag)) take(key, flag, { from: 'flag' });
    else if (fromEnv !== undefined) take(key, fromEnv, { from: 'env' });
    else if (file !== undefined && isGiven(fromFile)) {
      const relative = 'path' in setting && typeof fromFile === 'string';
      take(key, relative ? resolveFromFile(fromFile.trim(), file.path) : fromFile, { from: 'file', file: file.path });
    } else if (key === 'stateDir') {
      const list = lookup('STATE_DIRECTORY');
      take(key, defaultStateDir(list), list === undefined ? { from: 'default' } : { from: 'systemd', variable: 'STATE_DIRECTORY' });
    } else if ('default' in setting) take(key, setting.default, { from: 'default' });
  }
  if (file !== undefined && file.values[PROFILES_FILE_KEY] !== undefined) {
    values[PROFILES_FILE_KEY] = file.values[PROFILES_FILE_KEY];
  }
  return { values, origins };
}

function isGiven(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
}

function assemble(s: Settings, lookup: Lookup, file: ConfigFile | undefined): Config {
  const token = tokenSourceOf({
    tokenFile: s.apiTokenFile,
    credentialsDirectory: lookup('CREDENTIALS_DIRECTORY'),
    envToken: s.apiToken,
  });
  return {
    configFile: file?.path,
    apiUrl: s.apiUrl,
    customerId: s.customerId,
    deviceTypeId: s.deviceTypeId,
    token,
    stateDir: s.stateDir,
    runtimeDir: s.runtimeDir ?? defaultRuntimeDir(lookup('RUNTIME_DIRECTORY'), s.stateDir),
    mqtt:
      s.mqttUrl === undefined
        ? undefined
        : { url: s.mqttUrl, username: s.mqttUsername, passwordFile: s.mqttPasswordFile, caFile: s.mqttCaFile },
    mqttPrefix: s.mqttPrefix,
    mqttBleGateways: s.mqttBleGateways,
    zigbee2mqttPrefix: s.zigbee2mqttPrefix,
    homeAssistant: s.homeAssistant ? { prefix: s.homeAssistantPrefix } : undefined,
    ble: s.ble,
    hciDevice: s.hciDevice,
    bleReplay: s.bleReplay,
    minRssi: s.minRssi,
    autoPair: s.autoPair,
    supervision: { on: s.supervision === 'on', maxSeconds: s.supervisionMaxSeconds, batteryLowPercent: s.batteryLowPercent },
    apiConcurrency: s.apiConcurrency,
    apiTimeoutMs: Math.max(1, Math.round(s.apiTimeout * 1000)),
    entitlementTtlMs: s.entitlementTtl * 1000,
    logLevel: s.logLevel,
    profiles: s.profiles ?? defaultProfiles(),
    ...(s.buttonKeysFile === undefined ? {} : { buttonKeysFile: s.buttonKeysFile }),
    web: webConfigOf(s),
  };
}

function webConfigOf(s: Settings): WebConfig | undefined {
  if (s.webListen === undefined || s.webCodeFile === undefined) return undefined;
  const tls = s.webCertFile !== undefined && s.webKeyFile !== undefined ? { certFile: s.webCertFile, keyFile: s.webKeyFile } : undefined;
  return { ...s.webListen, codeFile: s.webCodeFile, ...(tls === undefined ? {} : { tls }) };
}

function requireSettings(config: Config, required: readonly RequiredSetting[]): void {
  for (const key of ['apiUrl', 'customerId'] as const) {
    if (required.includes(key) && config[key] === undefined) {
      throw new PanicPairError('config', `${SETTINGS[key].env} is required: ${SETTINGS[key].form}`);
    }
  }
  // A loose or unreadable password file stops `run` now (exit 2), as a loose token file does.
  if (required.includes('mqttPassword') && config.mqtt?.passwordFile !== undefined) readMqttPassword(config.mqtt.passwordFile);
  if (!required.includes('token')) return;
  if (config.token === undefined) {
    throw new PanicPairError(
      'config',
      `${SETTINGS.apiTokenFile.env} is required: ${SETTINGS.apiTokenFile.form} ` +
        `(or the systemd credential api-token, or ${SETTINGS.apiToken.env} for development)`,
    );
  }
  readToken(config.token); // fails now, with the fix, rather than at the first request
}
