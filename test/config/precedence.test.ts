import { afterAll, describe, expect, it } from 'vitest';
import { Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

describe('precedence: flag > environment > config file > default', () => {
  const file = scratch.config({ customerId: 3, minRssi: -60, logLevel: 'warn', apiConcurrency: 2, autoPair: true });

  it('takes the default when nothing is given', () => {
    const config = scratch.load();
    expect(config).toMatchObject({
      configFile: undefined,
      customerId: undefined,
      minRssi: -70,
      logLevel: 'info',
      apiConcurrency: 4,
      autoPair: false,
      ble: 'auto',
      hciDevice: { index: 0 },
      mqttPrefix: 'panic-pair',
      apiTimeoutMs: 10_000,
      entitlementTtlMs: 300_000,
      stateDir: '/var/lib/panic-pair',
      runtimeDir: '/var/lib/panic-pair',
      mqtt: undefined,
      token: undefined,
    });
    expect(config.profiles).toEqual([{ name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } }]);
  });

  it('takes the file over the default', () => {
    const config = scratch.load({ env: { PANIC_PAIR_CONFIG: file } });
    expect(config).toMatchObject({ configFile: file, customerId: 3, minRssi: -60, logLevel: 'warn', apiConcurrency: 2, autoPair: true });
  });

  it('takes the environment over the file', () => {
    const config = scratch.load({
      env: { PANIC_PAIR_CONFIG: file, PANIC_PAIR_CUSTOMER_ID: '4', PANIC_PAIR_MIN_RSSI: '-50', PANIC_PAIR_AUTO_PAIR: 'FALSE' },
    });
    expect(config).toMatchObject({ customerId: 4, minRssi: -50, autoPair: false, logLevel: 'warn', apiConcurrency: 2 });
  });

  it('takes the flag over the environment', () => {
    const config = scratch.load({
      env: { PANIC_PAIR_CONFIG: file, PANIC_PAIR_CUSTOMER_ID: '4', PANIC_PAIR_LOG_LEVEL: 'debug' },
      flags: { customerId: '5', logLevel: 'trace', apiConcurrency: 8 },
    });
    expect(config).toMatchObject({ customerId: 5, logLevel: 'trace', apiConcurrency: 8, minRssi: -60 });
  });

  it('counts an empty environment variable as unset', () => {
    const config = scratch.load({ env: { PANIC_PAIR_CONFIG: file, PANIC_PAIR_CUSTOMER_ID: '', PANIC_PAIR_LOG_LEVEL: '  ' } });
    expect(config).toMatchObject({ customerId: 3, logLevel: 'warn' });
  });

  it('finds the config file by flag before the variable', () => {
    const other = scratch.config({ customerId: 9 }, 'other.json');
    expect(scratch.load({ env: { PANIC_PAIR_CONFIG: file }, flags: { config: other } }).customerId).toBe(9);
  });

  it('reads the default config file when it exists', () => {
    expect(scratch.load({ defaultConfigFile: file }).configFile).toBe(file);
  });

  it('converts seconds to milliseconds', () => {
    const config = scratch.load({ env: { PANIC_PAIR_API_TIMEOUT: '2.5', PANIC_PAIR_ENTITLEMENT_TTL: '0' } });
    expect(config.apiTimeoutMs).toBe(2500);
    expect(config.entitlementTtlMs).toBe(0);
  });

  it('accepts booleans as true/false in any case, and 1/0', () => {
    for (const [text, value] of [['TRUE', true], ['1', true], ['False', false], ['0', false]] as const) {
      expect(scratch.load({ env: { PANIC_PAIR_AUTO_PAIR: text } }).autoPair).toBe(value);
    }
    expect(scratch.load({ flags: { autoPair: true } }).autoPair).toBe(true);
  });

  it('groups the MQTT settings, and leaves MQTT off without a URL', () => {
    const env = {
      PANIC_PAIR_MQTT_URL: 'mqtt://192.168.1.10:1883',
      PANIC_PAIR_MQTT_USERNAME: 'hub',
      PANIC_PAIR_MQTT_PASSWORD_FILE: '/etc/panic-pair/mqtt-password',
      PANIC_PAIR_MQTT_CA_FILE: '/etc/panic-pair/ca.pem',
    };
    expect(scratch.load({ env }).mqtt).toEqual({
      url: 'mqtt://192.168.1.10:1883',
      username: 'hub',
      passwordFile: '/etc/panic-pair/mqtt-password',
      caFile: '/etc/panic-pair/ca.pem',
    });
    expect(scratch.load({ env: { PANIC_PAIR_MQTT_USERNAME: 'hub' } }).mqtt).toBeUndefined();
  });

  it('takes a relative path in the config file relative to the file', () => {
    const withPaths = scratch.config({ stateDir: 'state', bleReplay: './capture.btsnoop' }, 'paths.json');
    const config = scratch.load({ flags: { config: withPaths } });
    expect(config.stateDir).toBe(`${scratch.dir}/state`);
    expect(config.bleReplay).toBe(`${scratch.dir}/capture.btsnoop`);
  });
});

describe('state and runtime directories', () => {
  it('honours systemd STATE_DIRECTORY and RUNTIME_DIRECTORY, first entry of a list', () => {
    const config = scratch.load({ env: { STATE_DIRECTORY: '/var/lib/a:/var/lib/b', RUNTIME_DIRECTORY: '/run/a:/run/b' } });
    expect(config.stateDir).toBe('/var/lib/a');
    expect(config.runtimeDir).toBe('/run/a');
  });

  it('puts the runtime dir in the state dir by default', () => {
    const config = scratch.load({ env: { PANIC_PAIR_STATE_DIR: '/srv/pp' } });
    expect(config).toMatchObject({ stateDir: '/srv/pp', runtimeDir: '/srv/pp' });
  });

  it('prefers the panic-pair variables and the config file to the systemd ones', () => {
    const env = { STATE_DIRECTORY: '/var/lib/a', RUNTIME_DIRECTORY: '/run/a' };
    expect(scratch.load({ env: { ...env, PANIC_PAIR_STATE_DIR: '/s', PANIC_PAIR_RUNTIME_DIR: '/r' } })).toMatchObject({
      stateDir: '/s',
      runtimeDir: '/r',
    });
    const file = scratch.config({ stateDir: '/fs', runtimeDir: '/fr' }, 'dirs.json');
    expect(scratch.load({ env: { ...env, PANIC_PAIR_CONFIG: file } })).toMatchObject({ stateDir: '/fs', runtimeDir: '/fr' });
  });
});
