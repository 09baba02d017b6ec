import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

// A certificate authority of its own for a test broker's TLS listener, as Home Assistant's
// Mosquitto add-on or a hand-made broker has: a CA, and a server certificate it signed for the
// given names. Made with `openssl` (EC keys: quick to make on a slow machine).

export interface TestCertificates {
  /** The CA's certificate (PEM): what PANIC_PAIR_MQTT_CA_FILE points at. */
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** `names` in subjectAltName form, e.g. ['DNS:localhost', 'IP:127.0.0.1']. */
export function makeCertificates(dir: string, names: readonly string[]): TestCertificates {
  const file = (name: string): string => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  openssl(['req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=panic-pair test CA']);
  openssl(['req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=panic-pair test broker']);
  writeFileSync(file('server.ext'), `subjectAltName=${names.join(',')}\nbasicConstraints=CA:FALSE\n`);
  openssl(['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext')]);
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}
