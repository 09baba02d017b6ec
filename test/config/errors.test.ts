import { afterAll, describe, expect, it } from 'vitest';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

describe('an invalid value names the setting and the expected form', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['PANIC_PAIR_CUSTOMER_ID', 'abc', /^PANIC_PAIR_CUSTOMER_ID must be an integer, the owning customer's id; got "abc"$/],
    ['PANIC_PAIR_CUSTOMER_ID', '0', /^PANIC_PAIR_CUSTOMER_ID must be a positive integer, the owning customer's id; got "0"$/],
    ['PANIC_PAIR_CUSTOMER_ID', '1.5', /PANIC_PAIR_CUSTOMER_ID must be .*; got "1.5"/],
    ['PANIC_PAIR_CUSTOMER_ID', '0x10', /PANIC_PAIR_CUSTOMER_ID must be .*; got "0x10"/],
    ['PANIC_PAIR_DEVICE_TYPE_ID', 'x', /PANIC_PAIR_DEVICE_TYPE_ID must be an integer/],
    ['PANIC_PAIR_MIN_RSSI', '-128', /PANIC_PAIR_MIN_RSSI must be an integer from -127 to 20.*; got "-128"/],
    ['PANIC_PAIR_MIN_RSSI', '21', /PANIC_PAIR_MIN_RSSI must be an integer from -127 to 20/],
    ['PANIC_PAIR_HCI_DEVICE', '-1', /^PANIC_PAIR_HCI_DEVICE must be the Bluetooth adapter: its index from 0 to 1023 .*; got "-1"$/],
    ['PANIC_PAIR_HCI_DEVICE', '1024', /PANIC_PAIR_HCI_DEVICE must be the Bluetooth adapter/],
    ['PANIC_PAIR_HCI_DEVICE', 'hcix', /PANIC_PAIR_HCI_DEVICE must be the Bluetooth adapter/],
    ['PANIC_PAIR_HCI_DEVICE', 'AA:BB:CC:DD:EE', /PANIC_PAIR_HCI_DEVICE must be .*or its address AA:BB:CC:DD:EE:FF/],
    ['PANIC_PAIR_AUTO_PAIR', 'yes', /PANIC_PAIR_AUTO_PAIR must be true or false \(or 1 or 0\); got "yes"/],
    ['PANIC_PAIR_API_CONCURRENCY', '0', /PANIC_PAIR_API_CONCURRENCY must be an integer from 1 to 64/],
    ['PANIC_PAIR_API_CONCURRENCY', '65', /PANIC_PAIR_API_CONCURRENCY must be an integer from 1 to 64/],
    ['PANIC_PAIR_API_TIMEOUT', '0', /PANIC_PAIR_API_TIMEOUT must be a number of seconds above 0 and at most 300/],
    ['PANIC_PAIR_API_TIMEOUT', '301', /PANIC_PAIR_API_TIMEOUT must be a number of seconds/],
    ['PANIC_PAIR_API_TIMEOUT', '10s', /PANIC_PAIR_API_TIMEOUT must be a number of seconds.*; got "10s"/],
    ['PANIC_PAIR_ENTITLEMENT_TTL', '1.5', /PANIC_PAIR_ENTITLEMENT_TTL must be an integer number of seconds/],
    ['PANIC_PAIR_ENTITLEMENT_TTL', '-1', /PANIC_PAIR_ENTITLEMENT_TTL must be an integer number of seconds/],
    ['PANIC_PAIR_BLE', 'maybe', /PANIC_PAIR_BLE must be one of on, off, auto/],
    ['PANIC_PAIR_LOG_LEVEL', 'verbose', /PANIC_PAIR_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"/],
    ['PANIC_PAIR_API_URL', 'not a url', /PANIC_PAIR_API_URL must be an https address/],
    ['PANIC_PAIR_API_URL', 'ftp://api.example.com', /PANIC_PAIR_API_URL must be an https address/],
    ['PANIC_PAIR_API_URL', 'https://api.example.com/?x=1', /PANIC_PAIR_API_URL must be a base address/],
    ['PANIC_PAIR_MQTT_URL', 'http://broker', /PANIC_PAIR_MQTT_URL must be a broker address, mqtt:\/\/host/],
    ['PANIC_PAIR_MQTT_PREFIX', 'a/#', /PANIC_PAIR_MQTT_PREFIX must not hold the wildcards \+ or #; expected an MQTT topic prefix/],
    ['PANIC_PAIR_MQTT_PREFIX', '/panic', /PANIC_PAIR_MQTT_PREFIX must not start or end with \//],
    ['PANIC_PAIR_MQTT_PREFIX', 'panic/', /PANIC_PAIR_MQTT_PREFIX must not start or end with \//],
    ['PANIC_PAIR_MQTT_PREFIX', '$SYS', /PANIC_PAIR_MQTT_PREFIX must not start with \$/],
  ];
  it.each(cases)('%s=%s', (variable, value, expected) => {
    const error = configError(() => scratch.load({ env: { [variable]: value } }));
    expect(error.message).toMatch(expected);
  });

  it('checks topic filters and prefixes of the MQTT adapters', () => {
    const mqtt = { PANIC_PAIR_MQTT_URL: 'mqtt://127.0.0.1' };
    expect(configError(() => scratch.load({ env: { ...mqtt, PANIC_PAIR_MQTT_BLE_GATEWAYS: 'home/#/x' } })).message).toMatch(
      /^PANIC_PAIR_MQTT_BLE_GATEWAYS # may only be the whole last level/,
    );
    expect(configError(() => scratch.load({ env: { ...mqtt, PANIC_PAIR_MQTT_BLE_GATEWAYS: 'home/a+/x' } })).message).toMatch(
      /^PANIC_PAIR_MQTT_BLE_GATEWAYS has \+ inside the level "a\+"/,
    );
    expect(configError(() => scratch.load({ env: { ...mqtt, PANIC_PAIR_ZIGBEE2MQTT_PREFIX: 'z2m/+' } })).message).toMatch(
      /^PANIC_PAIR_ZIGBEE2MQTT_PREFIX must not hold the wildcards/,
    );
    const ok = scratch.load({ env: { ...mqtt, PANIC_PAIR_MQTT_BLE_GATEWAYS: 'home/+/BTtoMQTT/#', PANIC_PAIR_ZIGBEE2MQTT_PREFIX: 'zigbee2mqtt' } });
    expect(ok).toMatchObject({ mqttBleGateways: 'home/+/BTtoMQTT/#', zigbee2mqttPrefix: 'zigbee2mqtt' });
  });

  it('refuses MQTT adapters without a broker', () => {
    const error = configError(() => scratch.load({ env: { PANIC_PAIR_MQTT_BLE_GATEWAYS: 'home/+/BTtoMQTT/+' } }));
    expect(error.message).toMatch(/^PANIC_PAIR_MQTT_BLE_GATEWAYS needs PANIC_PAIR_MQTT_URL/);
  });

  it('says where a value came from when not the environment', () => {
    const file = scratch.config({ customerId: 'abc' });
    expect(configError(() => scratch.load({ env: { PANIC_PAIR_CONFIG: file } })).message).toBe(
      `PANIC_PAIR_CUSTOMER_ID (customerId in ${file}) must be an integer, the owning customer's id; got "abc"`,
    );
    expect(configError(() => scratch.load({ flags: { minRssi: '-200' } })).message).toMatch(
      /^PANIC_PAIR_MIN_RSSI \(--min-rssi\) must be an integer from -127 to 20.*; got "-200"$/,
    );
  });

  it('rejects a JSON value of the wrong type in the file', () => {
    const file = scratch.config({ autoPair: 'sometimes', apiTimeout: [10] }, 'types.json');
    const message = configError(() => scratch.load({ flags: { config: file } })).message;
    expect(message).toContain(`PANIC_PAIR_AUTO_PAIR (autoPair in ${file}) must be true or false`);
    expect(message).toContain(`PANIC_PAIR_API_TIMEOUT (apiTimeout in ${file}) must be a number of seconds`);
  });

  it('never echoes a password given in an address', () => {
    const message = configError(() => scratch.load({ env: { PANIC_PAIR_MQTT_URL: 'mqtt://hub:hunter2@broker.lan' } })).message;
    expect(message).toMatch(/^PANIC_PAIR_MQTT_URL must not hold a user name or password/);
    expect(message).not.toContain('hunter2');
  });

  it.each(['hub:hunter2@broker.lan:1883', 'mqtt://hub:hunt/er2@broker.lan', 'mqtt://hub:hunter2?@broker.lan'])('never echoes the password of a malformed address (%s)', (value) => {
    // Found by the config-file fuzz target (test/fuzz/config-file/).
    const message = configError(() => scratch.load({ env: { PANIC_PAIR_MQTT_URL: value } })).message;
    expect(message).toMatch(/^PANIC_PAIR_MQTT_URL must /);
    expect(message).not.toMatch(/hunt/);
  });
});

describe('required settings', () => {
  it('names a missing required setting and its form', () => {
    expect(configError(() => scratch.load({ require: ['customerId'] })).message).toBe(
      "PANIC_PAIR_CUSTOMER_ID is required: an integer, the owning customer's id",
    );
    expect(configError(() => scratch.load({ require: ['apiUrl'] })).message).toMatch(/^PANIC_PAIR_API_URL is required: an https address/);
    expect(configError(() => scratch.load({ require: ['token'] })).message).toMatch(/^PANIC_PAIR_API_TOKEN_FILE is required/);
  });

  it('passes when they are given', () => {
    const config = scratch.load({
      env: { PANIC_PAIR_API_URL: 'https://api.example.com', PANIC_PAIR_CUSTOMER_ID: '42', PANIC_PAIR_API_TOKEN: 'tok' },
      require: ['apiUrl', 'customerId', 'token'],
    });
    expect(config).toMatchObject({ apiUrl: 'https://api.example.com', customerId: 42, token: { kind: 'env' } });
  });
});

describe('flags', () => {
  it('refuses the token as a flag: the process list would show it', () => {
    const message = configError(() => scratch.load({ flags: { apiToken: 'flag-token-value' } })).message;
    expect(message).toMatch(/^PANIC_PAIR_API_TOKEN cannot be given as a flag/);
    expect(message).not.toContain('flag-token-value');
  });
});
