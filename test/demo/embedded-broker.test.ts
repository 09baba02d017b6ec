import { describe, expect, it } from 'vitest';
import { startEmbeddedBroker } from '../../src/demo/embedded-broker.js';
import { PanicPairError } from '../../src/errors.js';

// aedes is a development dependency: on a hub installed with `npm ci --omit=dev` the demo must say
// what to do instead of failing with a module resolution error.

function missing(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /opt/panic-pair/dist/demo/embedded-broker.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('the demo broker', () => {
  it('carries MQTT between two clients on loopback', async () => {
    const broker = await startEmbeddedBroker();
    try {
      expect(broker.url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
      const { connectAsync } = await import('mqtt');
      const subscriber = await connectAsync(broker.url);
      const publisher = await connectAsync(broker.url);
      const received = new Promise<string>((resolve) => subscriber.on('message', (_topic, payload) => resolve(payload.toString())));
      await subscriber.subscribeAsync('demo/test');
      await publisher.publishAsync('demo/test', 'hello');
      expect(await received).toBe('hello');
      await Promise.all([subscriber.endAsync(), publisher.endAsync()]);
    } finally {
      await broker.close();
    }
  });

  it('says to run a full npm ci when aedes was left out of the install', async () => {
    const error = await startEmbeddedBroker(() => Promise.reject(missing('aedes'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PanicPairError);
    expect((error as PanicPairError).message).toMatch(/embedded MQTT broker \(the aedes package\).*--omit=dev.*run `npm ci` in \//s);
  });

  it('passes on any other failure to load as it is', async () => {
    const other = missing('mqtt-packet');
    await expect(startEmbeddedBroker(() => Promise.reject(other))).rejects.toBe(other);
  });
});
