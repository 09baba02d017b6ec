import { aclSubject, type ProtocolName } from '../mqtt/broker-answers.js';
import type { RefusalReport } from '../status/status-report.js';

// What `status` says about the broker beyond its state word: why it is not connected, which
// protocol it speaks, and what it refuses. A refused subscription leaves the hub deaf on it; a
// refused publish leaves subscribers without the hub's state: either makes the hub degraded.

export interface MqttDetail {
  reason?: string;
  protocol?: ProtocolName;
  refusals: RefusalReport;
  username?: string;
}

/** The status fields beside `mqtt`. */
export interface MqttStatusFields {
  mqttReason?: string;
  mqttProtocol?: ProtocolName;
  mqttRefusals?: RefusalReport;
}

type MqttState = 'off' | 'connecting' | 'connected' | 'disconnected';

export function mqttProblems(state: MqttState, detail: MqttDetail | undefined): string[] {
  const problems: string[] = [];
  if (state === 'connecting' || state === 'disconnected') problems.push(`the MQTT broker is not connected (${detail?.reason ?? state})`);
  if (detail === undefined) return problems;
  const user = aclSubject(detail.username);
  for (const { filter, reason } of detail.refusals.subscriptions) {
    problems.push(`the MQTT broker refuses the subscription to ${filter} (${reason}): the hub cannot hear it; the broker's ACL must let ${user} subscribe to ${filter}`);
  }
  for (const { topic, reason } of detail.refusals.publishes) {
    problems.push(`the MQTT broker refuses the publish to ${topic} (${reason}): its retained state is missing; the broker's ACL must let ${user} publish to ${topic}`);
  }
  return problems;
}

export function mqttStatusFields(state: MqttState, detail: MqttDetail | undefined): MqttStatusFields {
  if (detail === undefined) return {};
  const fields: MqttStatusFields = { mqttRefusals: detail.refusals };
  if (detail.protocol !== undefined) fields.mqttProtocol = detail.protocol;
  const refused = [
    ...detail.refusals.subscriptions.map(({ filter, reason }) => `subscription to ${filter} refused: ${reason}`),
    ...detail.refusals.publishes.map(({ topic, reason }) => `publish to ${topic} refused: ${reason}`),
  ];
  const reason = state === 'connected' ? refused.join('; ') : (detail.reason ?? '');
  if (reason !== '') fields.mqttReason = reason;
  return fields;
}

/** Why no button can be heard over MQTT, when the broker refuses every filter the sources use. */
export function refusedHearing(filters: readonly string[], refusals: RefusalReport, username: string | undefined): string | undefined {
  if (filters.length === 0) return undefined;
  const refused = filters.map((filter) => refusals.subscriptions.find((entry) => entry.filter === filter));
  if (refused.some((entry) => entry === undefined)) return undefined;
  const list = refused.map((entry) => `${entry!.filter} (${entry!.reason})`).join(', ');
  return `the MQTT broker refuses the subscription to ${list}, so no button can be heard over MQTT; the broker's ACL must let ${aclSubject(username)} subscribe to ${filters.join(' and ')}`;
}
