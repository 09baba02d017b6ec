import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';

// TLS in front of a plain loopback service (the simulator, the broker), with a self-signed
// certificate made by openssl for the test: what a hub must refuse unless told to trust it.

export interface SelfSignedCertificate {
  certFile: string;
  key: Buffer;
  cert: Buffer;
}

/** A self-signed certificate for 127.0.0.1, or undefined when openssl is not installed. */
export function makeSelfSignedCertificate(dir: string): SelfSignedCertificate | undefined {
  const keyFile = path.join(dir, 'relay-key.pem');
  const certFile = path.join(dir, 'relay-cert.pem');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { stdio: 'pipe' },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { certFile, key: readFileSync(keyFile), cert: readFileSync(certFile) };
}

export interface TlsRelay {
  port: number;
  /** Handshakes the client broke off (it refused the certificate) or that failed. */
  readonly refusedHandshakes: number;
  /** Connections that completed the handshake. */
  readonly acceptedHandshakes: number;
  /** Where decrypted traffic goes; connections before this is set wait for it. */
  setTarget(port: number): void;
  close(): Promise<void>;
}

export async function startTlsRelay(certificate: SelfSignedCertificate): Promise<TlsRelay> {
  let setTarget!: (port: number) => void;
  const target = new Promise<number>((resolve) => (setTarget = resolve));
  const sockets = new Set<net.Socket>();
  let refused = 0;
  let accepted = 0;
  const server = tls.createServer({ key: certificate.key, cert: certificate.cert }, (client) => {
    accepted++;
    sockets.add(client);
    client.on('error', () => client.destroy());
    client.once('close', () => sockets.delete(client));
    void target.then((port) => {
      const upstream = net.connect({ host: '127.0.0.1', port });
      sockets.add(upstream);
      upstream.once('close', () => sockets.delete(upstream));
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
      };
      upstream.on('error', drop).on('close', drop);
      client.on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  });
  server.on('tlsClientError', () => refused++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    get refusedHandshakes() {
      return refused;
    },
    get acceptedHandshakes() {
      return accepted;
    },
    setTarget,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
