// What a broker's reason codes mean, in the words `status` and `check` show. MQTT 5 gives a
// reason code in every SUBACK and PUBACK; MQTT 3.1.1 only 0x80 ("failure") in a SUBACK.

/** A granted QoS or reason code of 0x80 or more is a refusal (MQTT 5, 3.1.1 for SUBACK). */
export const REFUSED = 0x80;

const WORDS: Readonly<Record<number, string>> = {
  0x80: 'unspecified error',
  0x83: 'implementation specific error',
  0x87: 'not authorized',
  0x89: 'server busy',
  0x8b: 'server shutting down',
  0x8d: 'keep alive timeout',
  0x8e: 'session taken over (another client uses the same client id)',
  0x8f: 'topic filter invalid',
  0x90: 'topic name invalid',
  0x91: 'packet identifier in use',
  0x97: 'quota exceeded',
  0x99: 'payload format invalid',
  0x9a: 'retain not supported',
  0x9b: 'QoS not supported',
  0x98: 'administrative action',
  0x9c: 'use another server',
  0x9e: 'shared subscriptions not supported',
  0xa1: 'subscription identifiers not supported',
  0xa2: 'wildcard subscriptions not supported',
};

/** The code a SUBACK gave a one-filter SUBSCRIBE (a granted QoS, or a refusal); undefined when none came. */
export function subackCode(granted: ReadonlyArray<{ qos: number }> | undefined, packet: { granted: readonly unknown[] } | undefined): number | undefined {
  const code = packet?.granted[0] ?? granted?.[0]?.qos;
  return typeof code === 'number' ? code : undefined;
}

export function isRefusal(code: number | undefined): code is number {
  return code !== undefined && code >= REFUSED;
}

/** "not authorized (0x87)"; under 3.1.1 a refused subscription says only "refused (0x80)". */
export function reasonWords(code: number, protocolVersion: 4 | 5): string {
  const hex = `0x${code.toString(16).padStart(2, '0')}`;
  if (protocolVersion === 4 && code === 0x80) return `refused (${hex})`;
  return `${WORDS[code] ?? 'refused'} (${hex})`;
}

/** How `status --json` and `check` name the protocol spoken. */
export type ProtocolName = '5' | '3.1.1';

export function protocolName(version: 4 | 5): ProtocolName {
  return version === 5 ? '5' : '3.1.1';
}

/** Whom the broker's ACL must let through, as `status` and `check` name it in their fixes. */
export function aclSubject(username: string | undefined): string {
  return username === undefined ? 'this client (no user name)' : `user ${username}`;
}
