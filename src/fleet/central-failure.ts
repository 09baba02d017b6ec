import { errorCodeOf, PanicPairError } from '../errors.js';
import { describeConnectFailure } from '../mqtt/connect-failure.js';
import type { CentralSettings } from './central-input.js';

// Why `fleet` could not connect to the central broker, as an error naming the flag to change and
// the fix (exit 2). The daemon's words (src/mqtt/connect-failure.ts) with fleet's flags, and two
// failures of the reader's own: its client certificate refused, or its login.

/** CONNACK codes of a refused login: 3.1.1 (4, 5) and MQTT 5 (0x86, 0x87, 0x8c). */
const LOGIN_CODES = new Set<unknown>([4, 5, 0x86, 0x87, 0x8c]);

/**
 * TLS alerts a broker sends when it wants a client certificate and got none, or one it does not
 * accept (OpenSSL's codes as Node names them).
 */
const CLIENT_CERTIFICATE = /ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|HANDSHAKE_FAILURE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|UNSUPPORTED_CERTIFICATE|ACCESS_DENIED)/;

export function centralFailure(error: Error | undefined, settings: CentralSettings): PanicPairError {
  const { address, url } = settings;
  const code = errorCodeOf(error);
  const given = settings.client === undefined ? 'without a client certificate (--certfile, --keyfile)' : 'with the certificate --certfile names';
  if (typeof code === 'string' && CLIENT_CERTIFICATE.test(code)) {
    const fix =
      settings.client === undefined
        ? 'give --certfile and --keyfile: a certificate and key signed by the CA the broker trusts for clients'
        : "--certfile must be a certificate signed by the CA the broker trusts for clients (mosquitto: its listener's cafile), not expired, with --keyfile its key";
    return new PanicPairError('config', `the central broker at ${address} refused this reader ${given} (${error?.message ?? code}): ${fix}`, { cause: error });
  }
  if (LOGIN_CODES.has(code)) {
    return new PanicPairError(
      'config',
      `the central broker at ${address} refused this reader ${given} (${error?.message ?? 'not authorized'}): it must accept that certificate (mosquitto: use_identity_as_username) or anonymous readers`,
      { cause: error },
    );
  }
  const failure = describeConnectFailure(error, { broker: address, url, settings: { url: '--central', ca: '--cafile' } });
  return new PanicPairError('config', `${failure.detail}: ${failure.fix}`, { cause: error });
}
