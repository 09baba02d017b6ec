import { afterAll, describe, expect, it } from 'vitest';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const mqtt = { PANIC_PAIR_MQTT_URL: 'mqtt://127.0.0.1' };

describe('the Home Assistant settings', () => {
  it('are off by default, with the usual discovery prefix', () => {
    expect(scratch.load({ env: mqtt }).homeAssistant).toBeUndefined();
    expect(scratch.load({ env: { ...mqtt, PANIC_PAIR_HOMEASSISTANT: 'true' } }).homeAssistant).toEqual({ prefix: 'homeassistant' });
  });

  it('come from the environment, the file and flags', () => {
    const file = scratch.file('config.json', JSON.stringify({ homeAssistant: true, homeAssistantPrefix: 'ha' }), 0o644);
    expect(scratch.load({ env: mqtt, flags: { config: file } }).homeAssistant).toEqual({ prefix: 'ha' });
    expect(scratch.load({ env: { ...mqtt, PANIC_PAIR_HOMEASSISTANT_PREFIX: 'home/ha' }, flags: { config: file, homeAssistant: false } }).homeAssistant).toBeUndefined();
    expect(scratch.load({ env: { ...mqtt, PANIC_PAIR_HOMEASSISTANT: '1', PANIC_PAIR_HOMEASSISTANT_PREFIX: 'home/ha' } }).homeAssistant).toEqual({ prefix: 'home/ha' });
  });

  it('name the setting when a value is wrong', () => {
    expect(configError(() => scratch.load({ env: { ...mqtt, PANIC_PAIR_HOMEASSISTANT: 'yes' } })).message).toMatch(
      /^PANIC_PAIR_HOMEASSISTANT must be true or false \(or 1 or 0\)/,
    );
    expect(configError(() => scratch.load({ env: { ...mqtt, PANIC_PAIR_HOMEASSISTANT_PREFIX: 'ha/#' } })).message).toMatch(
      /^PANIC_PAIR_HOMEASSISTANT_PREFIX must not hold the wildcards/,
    );
    expect(configError(() => scratch.load({ env: { PANIC_PAIR_HOMEASSISTANT: 'true' } })).message).toMatch(/^PANIC_PAIR_HOMEASSISTANT needs PANIC_PAIR_MQTT_URL/);
  });
});
