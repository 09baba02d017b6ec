import type { Container, RunResult } from './container.js';
import { whilePressed } from './pressed-button.js';

// What the container suites do with panic-pair's service inside a booted container.

export { PACKAGE_RECIPE } from './test-roots.js';

/** `systemctl show` of `unit`, as a record of the properties asked for. */
export async function unitProperties(box: Container, unit: string, ...properties: string[]): Promise<Record<string, string>> {
  const text = await box.check(['systemctl', '--no-pager', 'show', unit, ...properties.map((name) => `--property=${name}`)]);
  return Object.fromEntries(text.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** `panic-pair pair <id>` run inside, while the button announces itself over MQTT from the host. */
export async function pairInside(box: Container, brokerUrl: string, deviceId: string): Promise<RunResult> {
  return whilePressed(brokerUrl, deviceId, () => box.run(['panic-pair', 'pair', deviceId, '--timeout', '30']));
}
