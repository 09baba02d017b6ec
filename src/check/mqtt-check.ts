import type { Config } from '../config/index.js';
import { GuardedFileError } from '../config/file-access.js';
import { readMqttPassword } from '../config/secret-file.js';
import { bridgeEventTopic } from '../discovery/zigbee2mqtt.js';
import { gatewayWillFilter } from '../discovery/source-liveness.js';
import { messageOf } from '../errors.js';
import { aclSubject, isRefusal, protocolName, reasonWords } from '../mqtt/broker-answers.js';
import { describeConnectFailure } from '../mqtt/connect-failure.js';
import { brokerForLogs, readCredentialFile } from '../mqtt/credentials.js';
import { announceTopic } from '../mqtt/topics.js';
import type { RefusedPublish } from '../status/status-report.js';
import { refusedPublishesOf, runningDaemonStatus } from './running-daemon.js';
import { probeBroker } from './mqtt-probe.js';
import { fail, off, pass, type CheckResult } from './result.js';

const CONNECT_TIMEOUT_MS = 5_000;
const URL_SETTING = 'PANIC_PAIR_MQTT_URL';
const PASSWORD_SETTING = 'PANIC_PAIR_MQTT_PASSWORD_FILE';

/**
 * The broker accepts the daemon's login and grants every subscription its sources need. A plain
 * client, not the daemon's connection: that one publishes `online` and sets a will, which a
 * pre-flight must not do.
 */
/** The publishes the running daemon saw the broker refuse, or undefined when no daemon answers. */
export type RefusedPublishes = (config: Config) => Promise<RefusedPublish[] | undefined>;

const askDaemon: RefusedPublishes = async (config) => {
  const report = await runningDaemonStatus(config);
  return report === undefined ? undefined : refusedPublishesOf(report);
};

export async function checkMqtt(config: Config, daemonRefusals: RefusedPublishes = askDaemon): Promise<CheckResult> {
  const mqtt = config.mqtt;
  if (mqtt === undefined) return off('mqtt', `off (${URL_SETTING} is not set)`);
  const url = new URL(mqtt.url);
  const broker = brokerForLogs(url);

  let password: string | undefined;
  if (mqtt.passwordFile !== undefined) {
    try {
      password = readMqttPassword(mqtt.passwordFile).reveal();
    } catch (error) {
      // The daemon reads the password only as it starts: once fixed, it needs a restart.
      const fix = error instanceof GuardedFileError && error.fix !== undefined ? error.fix : `check ${PASSWORD_SETTING}`;
      const problem = error instanceof GuardedFileError ? error.problem : messageOf(error);
      return { ...fail('mqtt', problem, fix), readAtStart: true };
    }
  }
  let ca: Buffer | undefined;
  if (mqtt.caFile !== undefined && url.protocol === 'mqtts:') {
    const read = readCredentialFile(mqtt.caFile);
    if (!read.ok) return fail('mqtt', `cannot read the MQTT CA file ${mqtt.caFile}: ${read.reason}`, 'check PANIC_PAIR_MQTT_CA_FILE');
    ca = read.value;
  }

  const filters = [announceTopic(config.mqttPrefix)];
  if (config.mqttBleGateways !== undefined) {
    filters.push(config.mqttBleGateways);
    const wills = gatewayWillFilter(config.mqttBleGateways);
    if (wills !== undefined) filters.push(wills);
  }
  if (config.zigbee2mqttPrefix !== undefined) {
    // Each button's own topic is known only from the device list; these three are fixed.
    const base = config.zigbee2mqttPrefix;
    filters.push(bridgeEventTopic(base), `${base}/bridge/devices`, `${base}/bridge/state`);
  }
  const outcome = await probeBroker({ url, username: mqtt.username, password, ca, filters, timeoutMs: CONNECT_TIMEOUT_MS });

  if (!outcome.ok) {
    const failure = describeConnectFailure(outcome.error, { broker, url, username: mqtt.username, passwordFile: mqtt.passwordFile });
    return fail('mqtt', failure.detail, failure.fix);
  }

  const user = aclSubject(mqtt.username);
  const as = mqtt.username === undefined ? '' : ` as ${mqtt.username}`;
  const spoken = `MQTT ${protocolName(outcome.protocolVersion)}`;
  const refused = outcome.granted.filter((answer) => isRefusal(answer.code));
  if (refused.length > 0) {
    const list = refused.map((answer) => `${answer.filter} (${reasonWords(answer.code, outcome.protocolVersion)})`).join(', ');
    const topics = refused.map((answer) => answer.filter).join(' and ');
    return fail(
      'mqtt',
      `connected to ${broker}${as} (${spoken}), but the broker refuses the subscription to ${list}: the hub cannot hear buttons there`,
      `the broker's ACL must let ${user} subscribe to ${topics}`,
    );
  }
  // What the daemon publishes to: its own topics, and Home Assistant's discovery configs when on.
  const discovery = config.homeAssistant === undefined ? '' : `; Home Assistant discovery on, under ${config.homeAssistant.prefix}/`;
  const publishTo = [`${config.mqttPrefix}/#`, ...(config.homeAssistant === undefined ? [] : [`${config.homeAssistant.prefix}/#`])].join(' and ');
  const connected = `connected to ${broker}${as} (${spoken}); subscribed to ${filters.join(', ')}${discovery}`;
  if (outcome.protocolVersion === 4) {
    return pass('mqtt', `${connected}; the broker speaks only MQTT 3.1.1, so a publish it refuses cannot be seen: its ACL must let ${user} publish to ${publishTo}`);
  }
  const refusedPublishes = await daemonRefusals(config);
  if (refusedPublishes === undefined) return pass('mqtt', `${connected}; a publish the broker refuses is shown by \`panic-pair status\` once the daemon runs`);
  if (refusedPublishes.length === 0) return pass('mqtt', `${connected}; the running daemon's publishes are accepted`);
  return fail(
    'mqtt',
    `${connected}, but the broker refuses the daemon's publish to ${refusedPublishes.map(({ topic, reason }) => `${topic} (${reason})`).join(', ')}: subscribers miss the hub's state`,
    `the broker's ACL must let ${user} publish to ${refusedPublishes.map(({ topic }) => topic).join(' and ')}`,
  );
}
