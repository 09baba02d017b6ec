// The one table of settings: each with its environment variable, config-file key, command-line
// flag, the expected form in words (used verbatim in error messages) and its default. The loader,
// the error messages and the documentation all follow this table, so a setting is added here once.
// Plain data on purpose: the light socket resolver (paths.ts) imports it without pulling in zod.
import { DEFAULT_CONFIG_FILE, DEFAULT_STATE_DIR, RUNTIME_DIR_VARIABLE } from './locations.js';

export interface Setting {
  /** The environment variable, the name every error message uses. */
  readonly env: string;
  /** The key in the JSON config file (the setting's own key), or null when the file may not hold it. */
  readonly fileKey: string | null;
  /** The command-line flag, or null when it has none. */
  readonly flag: string | null;
  /** The expected form, in words: "must be <form>". */
  readonly form: string;
  /** The default, in the setting's own form (seconds, not ms), before validation. */
  readonly default?: string | number | boolean;
  /** The default as the documentation states it. */
  readonly defaultText: string;
  /** A path: one given in the config file is taken relative to the file's directory. */
  readonly path?: true;
  /** Never echoed back in an error message. */
  readonly secret?: true;
  /** An address whose user-info part is blanked before it is echoed back. */
  readonly address?: true;
}

export const SETTINGS = {
  config: {
    env: 'PANIC_PAIR_CONFIG',
    fileKey: null,
    flag: '--config',
    form: 'a path to a JSON config file',
    defaultText: `${DEFAULT_CONFIG_FILE} if it exists`,
    path: true,
  },
  apiUrl: {
    env: 'PANIC_PAIR_API_URL',
    fileKey: 'apiUrl',
    flag: '--api-url',
    form: 'an https address of the panic-api, e.g. https://api.example.com (http only for a loopback host)',
    defaultText: 'none; required for run',
    address: true,
  },
  apiTokenFile: {
    env: 'PANIC_PAIR_API_TOKEN_FILE',
    fileKey: 'apiTokenFile',
    flag: '--api-token-file',
    form: 'a path to a file holding the bearer token, readable by its owner only (chmod 600)',
    defaultText: 'none',
    path: true,
  },
  apiToken: {
    env: 'PANIC_PAIR_API_TOKEN',
    // Not in the config file (it is readable by others) nor a flag (the process list shows flags).
    fileKey: null,
    flag: null,
    form: 'the bearer token itself, for development (prefer PANIC_PAIR_API_TOKEN_FILE)',
    defaultText: 'none',
    secret: true,
  },
  customerId: {
    env: 'PANIC_PAIR_CUSTOMER_ID',
    fileKey: 'customerId',
    flag: '--customer-id',
    form: "an integer, the owning customer's id",
    defaultText: 'none; required for run',
  },
  deviceTypeId: {
    env: 'PANIC_PAIR_DEVICE_TYPE_ID',
    fileKey: 'deviceTypeId',
    flag: '--device-type-id',
    form: "an integer, the deviceTypeId sent when the button's profile gives none",
    defaultText: 'none (the field is left out)',
  },
  stateDir: {
    env: 'PANIC_PAIR_STATE_DIR',
    fileKey: 'stateDir',
    flag: '--state-dir',
    form: 'a directory path, where the pairing store lives',
    default: DEFAULT_STATE_DIR,
    defaultText: `the first entry of $STATE_DIRECTORY, else ${DEFAULT_STATE_DIR}`,
    path: true,
  },
  runtimeDir: {
    env: RUNTIME_DIR_VARIABLE,
    fileKey: 'runtimeDir',
    flag: '--runtime-dir',
    form: 'a directory path, where the control socket lives',
    defaultText: 'the first entry of $RUNTIME_DIRECTORY, else the state dir',
    path: true,
  },
  mqttUrl: {
    env: 'PANIC_PAIR_MQTT_URL',
    fileKey: 'mqttUrl',
    flag: '--mqtt-url',
    form: 'a broker address, mqtt://host[:port] or mqtts://host[:port]',
    defaultText: 'none (MQTT off)',
    address: true,
  },
  mqttUsername: {
    env: 'PANIC_PAIR_MQTT_USERNAME',
    fileKey: 'mqttUsername',
    flag: '--mqtt-username',
    form: 'the user name for the broker',
    defaultText: 'none',
  },
  mqttPasswordFile: {
    env: 'PANIC_PAIR_MQTT_PASSWORD_FILE',
    fileKey: 'mqttPasswordFile',
    flag: '--mqtt-password-file',
    form: 'a path to a file holding the broker password',
    defaultText: 'none',
    path: true,
  },
  buttonKeysFile: {
    env: 'PANIC_PAIR_BUTTON_KEYS_FILE',
    fileKey: 'buttonKeysFile',
    flag: null,
    form: 'a path to a file of button keys, one `<deviceId> <32 hex digits>` a line, readable by its owner only (chmod 600)',
    defaultText: 'none',
    path: true,
  },
  mqttCaFile: {
    env: 'PANIC_PAIR_MQTT_CA_FILE',
    fileKey: 'mqttCaFile',
    flag: '--mqtt-ca-file',
    form: "a path to the PEM file of the CA that signed the broker's certificate",
    defaultText: 'none (the system CAs)',
    path: true,
  },
  mqttPrefix: {
    env: 'PANIC_PAIR_MQTT_PREFIX',
    fileKey: 'mqttPrefix',
    flag: '--mqtt-prefix',
    form: 'an MQTT topic prefix without wildcards (+ #), $ at the start, or / at either end, e.g. panic-pair',
    default: 'panic-pair',
    defaultText: 'panic-pair',
  },
  mqttBleGateways: {
    env: 'PANIC_PAIR_MQTT_BLE_GATEWAYS',
    fileKey: 'mqttBleGateways',
    flag: '--mqtt-ble-gateways',
    form: 'an MQTT topic filter of BLE gateways in the BTtoMQTT format, e.g. home/+/BTtoMQTT/+',
    defaultText: 'none (off)',
  },
  zigbee2mqttPrefix: {
    env: 'PANIC_PAIR_ZIGBEE2MQTT_PREFIX',
    fileKey: 'zigbee2mqttPrefix',
    flag: '--zigbee2mqtt-prefix',
    form: 'the Zigbee2MQTT base topic, without wildcards or / at either end, e.g. zigbee2mqtt',
    defaultText: 'none (off)',
  },
  homeAssistant: {
    env: 'PANIC_PAIR_HOMEASSISTANT',
    fileKey: 'homeAssistant',
    flag: '--home-assistant',
    form: 'true or false (or 1 or 0); true: the hub and its buttons appear in Home Assistant through MQTT discovery',
    default: false,
    defaultText: 'false',
  },
  homeAssistantPrefix: {
    env: 'PANIC_PAIR_HOMEASSISTANT_PREFIX',
    fileKey: 'homeAssistantPrefix',
    flag: '--home-assistant-prefix',
    form: "Home Assistant's MQTT discovery prefix, without wildcards or / at either end, e.g. homeassistant",
    default: 'homeassistant',
    defaultText: 'homeassistant',
  },
  ble: {
    env: 'PANIC_PAIR_BLE',
    fileKey: 'ble',
    flag: '--ble',
    form: 'one of on, off, auto (on when an adapter is present)',
    default: 'auto',
    defaultText: 'auto',
  },
  hciDevice: {
    env: 'PANIC_PAIR_HCI_DEVICE',
    fileKey: 'hciDevice',
    flag: '--hci-device',
    form: 'the Bluetooth adapter: its index from 0 to 1023 (0 for hci0), hciN, or its address AA:BB:CC:DD:EE:FF (found again when the kernel renumbers it)',
    default: 0,
    defaultText: '0',
  },
  bleReplay: {
    env: 'PANIC_PAIR_BLE_REPLAY',
    fileKey: 'bleReplay',
    flag: '--ble-replay',
    form: "a path to a btsnoop capture (btmon -w, or Android's btsnoop_hci.log)",
    defaultText: 'none (the live adapter)',
    path: true,
  },
  minRssi: {
    env: 'PANIC_PAIR_MIN_RSSI',
    fileKey: 'minRssi',
    flag: '--min-rssi',
    form: 'an integer from -127 to 20, the RSSI floor in dBm',
    default: -70,
    defaultText: '-70',
  },
  autoPair: {
    env: 'PANIC_PAIR_AUTO_PAIR',
    fileKey: 'autoPair',
    flag: '--auto-pair',
    form: 'true or false (or 1 or 0)',
    default: false,
    defaultText: 'false',
  },
  supervision: {
    env: 'PANIC_PAIR_SUPERVISION',
    fileKey: 'supervision',
    flag: '--supervision',
    form: 'on or off, the supervision of linked buttons (off: every button is unsupervised)',
    default: 'on',
    defaultText: 'on',
  },
  supervisionMaxSeconds: {
    env: 'PANIC_PAIR_SUPERVISION_MAX_SECONDS',
    fileKey: 'supervisionMaxSeconds',
    flag: '--supervision-max-seconds',
    form: 'an integer number of seconds from 60 to 604800, the longest a linked button may be silent before it is missing',
    default: 7200,
    defaultText: '7200',
  },
  batteryLowPercent: {
    env: 'PANIC_PAIR_BATTERY_LOW_PERCENT',
    fileKey: 'batteryLowPercent',
    flag: '--battery-low-percent',
    form: 'an integer from 0 to 100: a battery at or below this percent is low',
    default: 20,
    defaultText: '20',
  },
  apiConcurrency: {
    env: 'PANIC_PAIR_API_CONCURRENCY',
    fileKey: 'apiConcurrency',
    flag: '--api-concurrency',
    form: 'an integer from 1 to 64, the most API requests in flight at once',
    default: 4,
    defaultText: '4',
  },
  apiTimeout: {
    env: 'PANIC_PAIR_API_TIMEOUT',
    fileKey: 'apiTimeout',
    flag: '--api-timeout',
    form: 'a number of seconds above 0 and at most 300 (fractions allowed), the time one API request may take',
    default: 10,
    defaultText: '10',
  },
  entitlementTtl: {
    env: 'PANIC_PAIR_ENTITLEMENT_TTL',
    fileKey: 'entitlementTtl',
    flag: '--entitlement-ttl',
    form: 'an integer number of seconds from 0 to 86400, how long a positive entitlement answer is reused',
    default: 300,
    defaultText: '300',
  },
  logLevel: {
    env: 'PANIC_PAIR_LOG_LEVEL',
    fileKey: 'logLevel',
    flag: '--log-level',
    form: 'one of fatal, error, warn, info, debug, trace, silent',
    default: 'info',
    defaultText: 'info',
  },
  webListen: {
    env: 'PANIC_PAIR_WEB_LISTEN',
    fileKey: 'webListen',
    flag: '--web-listen',
    form: "host:port of the installer's page, e.g. 0.0.0.0:8080 or [::]:8080 (port 1024 to 65535, or 0 for any free port)",
    defaultText: 'none (no page)',
  },
  webCodeFile: {
    env: 'PANIC_PAIR_WEB_CODE_FILE',
    fileKey: 'webCodeFile',
    flag: '--web-code-file',
    form: 'a path to a file holding the installer code for the page, readable by its owner only (chmod 600)',
    defaultText: 'none; required when the page is on',
    path: true,
  },
  webCertFile: {
    env: 'PANIC_PAIR_WEB_CERT_FILE',
    fileKey: 'webCertFile',
    flag: '--web-cert-file',
    form: "a path to the page's PEM certificate (with PANIC_PAIR_WEB_KEY_FILE: the page over HTTPS)",
    defaultText: 'none (HTTP)',
    path: true,
  },
  webKeyFile: {
    env: 'PANIC_PAIR_WEB_KEY_FILE',
    fileKey: 'webKeyFile',
    flag: '--web-key-file',
    form: "a path to the page's PEM private key, readable by its owner only (chmod 600)",
    defaultText: 'none (HTTP)',
    path: true,
  },
  updateProbation: {
    env: 'PANIC_PAIR_UPDATE_PROBATION',
    fileKey: 'updateProbation',
    flag: '--update-probation',
    form: 'an integer number of seconds, at least 60, that a new version is on probation after an update',
    default: 600,
    defaultText: '600',
  },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

export function settingOf(key: SettingKey): Setting {
  return SETTINGS[key];
}

/** The config file may also hold `profiles`, which has no variable or flag (a list of objects). */
export const PROFILES_FILE_KEY = 'profiles';
