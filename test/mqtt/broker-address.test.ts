import { describe, expect, it } from 'vitest';
import { brokerAddress } from '../../src/mqtt/broker-address.js';

describe('brokerAddress: a configured broker URL as mqtt.js options', () => {
  it('takes the protocol, host and port; leaves the port to mqtt.js when the URL has none', () => {
    expect(brokerAddress(new URL('mqtt://hub.local:1884'))).toEqual({ protocol: 'mqtt', host: 'hub.local', hostname: 'hub.local', port: 1884 });
    expect(brokerAddress(new URL('mqtts://broker.example'))).toEqual({ protocol: 'mqtts', host: 'broker.example', hostname: 'broker.example' });
  });

  it('gives an IPv6 address without its brackets', () => {
    expect(brokerAddress(new URL('mqtt://[::1]:18830'))).toMatchObject({ host: '::1', hostname: '::1', port: 18830 });
  });
});
