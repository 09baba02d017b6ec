import { errorCodeOf } from '../errors.js';

// Why a connection to the broker failed, and the fix that matches: shared by `check` (detail and
// fix) and the daemon's connection (the reason `status` shows). Each failure points where the
// installer must look: the CA file and the certificate's names, the login, or the scheme and port.

export interface ConnectFailure {
  /** Short, for `status` (`mqttReason`) and the log. */
  reason: string;
  /** What was found, for `check`. */
  detail: string;
  /** The change that fixes it. */
  fix: string;
}

export interface FailureContext {
  /** The broker address as it may be shown: scheme, host and port. */
  broker: string;
  url: URL;
  username?: string;
  passwordFile?: string;
  /** The settings the fixes name; default the daemon's (PANIC_PAIR_MQTT_URL, PANIC_PAIR_MQTT_CA_FILE). */
  settings?: { url: string; ca: string };
}

const DAEMON_URL_SETTING = 'PANIC_PAIR_MQTT_URL';
const DAEMON_CA_SETTING = 'PANIC_PAIR_MQTT_CA_FILE';
const TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
]);
/** CONNACK codes of a refused login: 3.1.1 (4, 5) and MQTT 5 (0x86, 0x87, 0x8c). */
const LOGIN_CODES = new Set<unknown>([4, 5, 0x86, 0x87, 0x8c]);

/** `error` undefined: no answer within the connect time-out. */
export function describeConnectFailure(error: Error | undefined, context: FailureContext): ConnectFailure {
  const { broker, url } = context;
  const urlSetting = context.settings?.url ?? DAEMON_URL_SETTING;
  const caSetting = context.settings?.ca ?? DAEMON_CA_SETTING;
  const code = errorCodeOf(error);
  const message = error?.message ?? 'no answer';
  // An altname error carries the certificate; a certificate not trusted is never read (TLS is
  // verified, always), so the installer is given the command that shows its issuer and names.
  const names = certificateNames((error as { cert?: CertificateFields } | undefined)?.cert);
  const named = names.length === 0 ? '' : ` (the certificate names ${names.join(', ')})`;
  const port = url.port || '8883';
  const showCertificate = `\`openssl s_client -connect ${url.hostname}:${port} -showcerts </dev/null\` shows its issuer and names`;
  if (error === undefined) {
    return {
      reason: 'no answer from the broker',
      detail: `no MQTT connection to ${broker} in time`,
      fix: `check ${urlSetting} (mqtt:// or mqtts://, host and port) and, for mqtts, ${caSetting}`,
    };
  }
  if (typeof code === 'string' && TRUST_CODES.has(code)) {
    return {
      reason: `the broker's certificate is not trusted: ${message}`,
      detail: `the broker at ${broker} presented a certificate the hub does not trust: ${message}${named}`,
      fix: `point ${caSetting} at the PEM file of the CA that signed the broker's certificate (${showCertificate})`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      reason: `the broker's certificate does not name ${url.hostname}`,
      detail: `the broker's certificate does not name ${url.hostname}: ${message}${named}`,
      fix: `use in ${urlSetting} a host name the broker's certificate names${named}, or give the certificate ${url.hostname} in its subjectAltName`,
    };
  }
  if (code === 'CERT_NOT_YET_VALID') {
    return {
      reason: `the broker's certificate is not yet valid (is the hub's clock set?)`,
      detail: `the broker's certificate at ${broker} is not yet valid by the hub's clock`,
      fix: `set the hub's clock (timedatectl; NTP), or check the certificate's dates; ${caSetting} names the CA`,
    };
  }
  if (LOGIN_CODES.has(code)) {
    const user = context.username === undefined ? 'no user name (PANIC_PAIR_MQTT_USERNAME is unset)' : `user ${context.username}`;
    const file = context.passwordFile === undefined ? 'PANIC_PAIR_MQTT_PASSWORD_FILE (unset)' : `the password in ${context.passwordFile} (PANIC_PAIR_MQTT_PASSWORD_FILE)`;
    return {
      reason: `the broker refused the login: ${message}`,
      detail: `the broker at ${broker} refused the login of ${user}: ${message}`,
      fix: `check PANIC_PAIR_MQTT_USERNAME and ${file}; the broker must know that user with that password`,
    };
  }
  if (code === 'ECONNREFUSED') {
    return {
      reason: 'connection refused',
      detail: `no MQTT broker answers at ${broker} (connection refused)`,
      fix: `start the broker (e.g. systemctl start mosquitto) or correct ${urlSetting}`,
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { reason: `${url.hostname} does not resolve`, detail: `the broker's host name in ${broker} does not resolve`, fix: `correct ${urlSetting}, or the hub's DNS` };
  }
  if (url.protocol === 'mqtt:' && (code === 'ECONNRESET' || code === 'EPIPE')) {
    return {
      reason: `the broker reset the connection (${message}); the port may want mqtts://`,
      detail: `the broker at ${broker} reset the connection at once: ${message}`,
      fix: `the port may be a TLS listener and want mqtts:// (e.g. mqtts://${url.hostname}:${url.port || '8883'}); correct ${urlSetting}`,
    };
  }
  // A plain listener answers a TLS handshake with garbage (wrong version number) or a reset.
  const handshakeFailed = code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ECONNRESET' || /wrong version number|packet length too long/i.test(message);
  if (url.protocol === 'mqtts:' && handshakeFailed) {
    return {
      reason: `no TLS answer at ${broker} (${message}); the port may want mqtt://`,
      detail: `the broker at ${broker} did not complete a TLS handshake on that port: ${message}`,
      fix: `use mqtt:// for a plain listener (e.g. mqtt://${url.hostname}:${url.port || '1883'}), or the broker's TLS port (often 8883), in ${urlSetting}`,
    };
  }
  return { reason: message, detail: `cannot connect to the broker at ${broker}: ${message}`, fix: `check ${urlSetting} and the hub's network` };
}

interface CertificateFields {
  subject?: { CN?: unknown };
  subjectaltname?: unknown;
}

/**
 * The names a client checks the host against: subjectAltName entries ("DNS:hub.local" becomes
 * "hub.local"), or the subject's CN when there are none (TLS ignores the CN beside them).
 */
function certificateNames(cert: CertificateFields | undefined): string[] {
  if (cert === undefined) return [];
  const names: string[] = [];
  if (typeof cert.subjectaltname === 'string') {
    for (const entry of cert.subjectaltname.split(',')) {
      const name = entry.trim().replace(/^(DNS|IP Address):/, '');
      if (name !== '') names.push(name);
    }
  }
  const cn = cert.subject?.CN;
  if (names.length === 0 && typeof cn === 'string') names.push(cn);
  return [...new Set(names)];
}
