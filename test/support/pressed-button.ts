import { connectAsync } from 'mqtt';

// A button someone keeps pressing: it announces itself on `<prefix>/announce` every 200 ms, as a
// real button advertises, while a command that waits for it (`panic-pair pair <id>`) runs.

const EVERY_MS = 200;

/** Runs `action` while `deviceId` announces itself through the broker at `brokerUrl`; resolves with what `action` gives. */
export async function whilePressed<T>(brokerUrl: string, deviceId: string, action: () => Promise<T>, prefix = 'panic-pair'): Promise<T> {
  const button = await connectAsync(brokerUrl, { reconnectPeriod: 0 });
  const press = (): void => void button.publish(`${prefix}/announce`, JSON.stringify({ deviceId, rssi: -50 }));
  const timer = setInterval(press, EVERY_MS);
  try {
    return await action();
  } finally {
    clearInterval(timer);
    await button.endAsync();
  }
}
