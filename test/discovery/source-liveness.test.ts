import { describe, expect, it } from 'vitest';
import { gatewayWillFilter, readLivenessWord } from '../../src/discovery/source-liveness.js';

describe('readLivenessWord: Theengs Gateway and OpenMQTTGateway last wills', () => {
  it.each<[string, boolean]>([
    ['online', true],
    ['offline', false],
    ['Online', true],
    ['OFFLINE', false],
    ['  offline\r\n', false],
    ['\tonline ', true],
  ])('%j', (payload, up) => {
    expect(readLivenessWord(Buffer.from(payload))).toBe(up);
  });

  it.each(['', 'on', 'off', 'online!', '{"state":"online"}', '1', 'x'.repeat(65)])('refuses %j', (payload) => {
    expect(readLivenessWord(Buffer.from(payload))).toHaveProperty('invalid');
  });
});

describe('gatewayWillFilter', () => {
  it.each<[string, string | undefined]>([
    ['home/+/BTtoMQTT/+', 'home/+/LWT'],
    ['home/TheengsGateway/BTtoMQTT/#', 'home/TheengsGateway/LWT'],
    ['+/BTtoMQTT/+', '+/LWT'],
    ['site/a/b/+/BTtoMQTT/+', 'site/a/b/+/LWT'],
    ['BTtoMQTT/+', undefined],
    ['ble/#', undefined],
    ['#', undefined],
  ])('%s gives %s', (filter, expected) => {
    expect(gatewayWillFilter(filter)).toBe(expected);
  });
});
