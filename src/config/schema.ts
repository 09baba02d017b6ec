// The one schema every configuration value goes through, whatever its source, and the typed
// result the rest of the daemon receives.
import { z } from 'zod';
import { Secret } from './secret.js';
import { apiUrl, mqttUrl } from './addresses.js';
import { decimal, integer, oneOf, path, text, yesNo } from './fields.js';
import { profilesSchema, type Profile } from './profile.js';
import { SETTINGS } from './settings.js';
import type { TokenSource } from './token.js';
import { topicFilterProblem, topicPrefixProblem } from './topics.js';
import { listenAddress, type WebConfig } from './web.js';
import { adapterChoice, type AdapterChoice } from './adapter.js';

export const BLE_MODES = ['on', 'off', 'auto'] as const;
export const SUPERVISION_MODES = ['on', 'off'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export type BleMode = (typeof BLE_MODES)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface MqttConfig {
  url: string;
  username?: string;
  /** Read by the MQTT client when it connects, so a changed password needs no restart of this module. */
  passwordFile?: string;
  caFile?: string;
}

export interface SupervisionConfig {
  /** PANIC_PAIR_SUPERVISION=off: every linked button is unsupervised. */
  on: boolean;
  /** The longest a linked button may be silent before it is missing. */
  maxSeconds: number;
  /** A battery at or below this percent is low. */
  batteryLowPercent: number;
}

export interface Config {
  /** The file actually read, if any. */
  configFile?: string;
  /** No trailing slash and no trailing /panic-api/v2: the client appends /panic-api/v2/... */
  apiUrl?: string;
  customerId?: number;
  deviceTypeId?: number;
  /** Where the token comes from; read it with readToken(). Undefined when there is none. */
  token?: TokenSource;
  stateDir: string;
  runtimeDir: string;
  /** Undefined when PANIC_PAIR_MQTT_URL is unset: MQTT off. */
  mqtt?: MqttConfig;
  mqttPrefix: string;
  mqttBleGateways?: string;
  zigbee2mqttPrefix?: string;
  /** Undefined when PANIC_PAIR_HOMEASSISTANT is off. */
  homeAssistant?: { prefix: string };
  ble: BleMode;
  /** The adapter by index or by address. */
  hciDevice: AdapterChoice;
  bleReplay?: string;
  minRssi: number;
  autoPair: boolean;
  /** How linked buttons are supervised: on or off, the longest silence, the low-battery threshold. */
  supervision: SupervisionConfig;
  apiConcurrency: number;
  apiTimeoutMs: number;
  entitlementTtlMs: number;
  logLevel: LogLevel;
  profiles: Profile[];
  /** PANIC_PAIR_BUTTON_KEYS_FILE: the keys of trusted buttons, read by the daemon as it starts. */
  buttonKeysFile?: string;
  /** The installer's page; undefined when PANIC_PAIR_WEB_LISTEN is unset. */
  web?: WebConfig;
}

const form = <K extends keyof typeof SETTINGS>(key: K): string => SETTINGS[key].form;

function topic(key: 'mqttPrefix' | 'zigbee2mqttPrefix' | 'mqttBleGateways' | 'homeAssistantPrefix', problemOf: (t: string) => string | undefined) {
  return text(form(key)).superRefine((value, ctx) => {
    const problem = problemOf(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `${problem}; expected ${form(key)}` });
  });
}

export const settingsSchema = z
  .object({
    apiUrl: apiUrl(form('apiUrl')).optional(),
    apiTokenFile: path(form('apiTokenFile')).optional(),
    apiToken: text(form('apiToken'))
      .transform((value) => new Secret(value))
      .optional(),
    customerId: integer(form('customerId'), 1, Number.MAX_SAFE_INTEGER, "a positive integer, the owning customer's id").optional(),
    deviceTypeId: integer(form('deviceTypeId')).optional(),
    stateDir: path(form('stateDir')),
    runtimeDir: path(form('runtimeDir')).optional(),
    mqttUrl: mqttUrl(form('mqttUrl')).optional(),
    mqttUsername: text(form('mqttUsername')).optional(),
    mqttPasswordFile: path(form('mqttPasswordFile')).optional(),
    mqttCaFile: path(form('mqttCaFile')).optional(),
    buttonKeysFile: path(form('buttonKeysFile')).optional(),
    mqttPrefix: topic('mqttPrefix', topicPrefixProblem),
    mqttBleGateways: topic('mqttBleGateways', topicFilterProblem).optional(),
    zigbee2mqttPrefix: topic('zigbee2mqttPrefix', topicPrefixProblem).optional(),
    homeAssistant: yesNo(form('homeAssistant')),
    homeAssistantPrefix: topic('homeAssistantPrefix', topicPrefixProblem),
    ble: oneOf(BLE_MODES, form('ble')),
    hciDevice: adapterChoice(form('hciDevice')),
    bleReplay: path(form('bleReplay')).optional(),
    minRssi: integer(form('minRssi'), -127, 20),
    autoPair: yesNo(form('autoPair')),
    supervision: oneOf(SUPERVISION_MODES, form('supervision')),
    supervisionMaxSeconds: integer(form('supervisionMaxSeconds'), 60, 604_800),
    batteryLowPercent: integer(form('batteryLowPercent'), 0, 100),
    apiConcurrency: integer(form('apiConcurrency'), 1, 64),
    apiTimeout: decimal(form('apiTimeout'), 0, 300),
    entitlementTtl: integer(form('entitlementTtl'), 0, 86_400),
    logLevel: oneOf(LOG_LEVELS, form('logLevel')),
    profiles: profilesSchema.optional(),
    webListen: listenAddress(form('webListen')).optional(),
    webCodeFile: path(form('webCodeFile')).optional(),
    webCertFile: path(form('webCertFile')).optional(),
    webKeyFile: path(form('webKeyFile')).optional(),
    // Read by the judge of each update from the config file and the unit's environment, not by the
    // daemon: checked here so that a wrong value stops `run` as any other does, and left out of Config.
    updateProbation: integer(form('updateProbation'), 60),
  })
  .superRefine((settings, ctx) => {
    // Adapters that listen on the broker would silently hear nothing without one.
    for (const key of ['mqttBleGateways', 'zigbee2mqttPrefix'] as const) {
      if (settings[key] !== undefined && settings.mqttUrl === undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `needs ${SETTINGS.mqttUrl.env}: the adapter listens on the broker` });
      }
    }
    // The page never runs without its installer code, and never half in HTTPS.
    if (settings.webListen !== undefined && settings.webCodeFile === undefined) {
      ctx.addIssue({ code: 'custom', path: ['webCodeFile'], message: `is required when ${SETTINGS.webListen.env} is set: ${form('webCodeFile')}` });
    }
    if ((settings.webCertFile === undefined) !== (settings.webKeyFile === undefined)) {
      const missing = settings.webCertFile === undefined ? 'webCertFile' : 'webKeyFile';
      ctx.addIssue({ code: 'custom', path: [missing], message: `is required with ${SETTINGS[missing === 'webCertFile' ? 'webKeyFile' : 'webCertFile'].env}: ${form(missing)}` });
    }
    if (settings.homeAssistant && settings.mqttUrl === undefined) {
      ctx.addIssue({ code: 'custom', path: ['homeAssistant'], message: `needs ${SETTINGS.mqttUrl.env}: Home Assistant discovery goes through the broker` });
    }
  });

export type Settings = z.output<typeof settingsSchema>;
