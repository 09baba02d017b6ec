// The installer's page settings: where it listens, the installer code, and
// the certificate that turns it into HTTPS. Parsed here with the other settings; the code and the
// key are read by the daemon at start (readWebSecrets), never by the CLI's other commands.
import { isIP } from 'node:net';
import { z } from 'zod';
import { PanicPairError } from '../errors.js';
import { must, text } from './fields.js';
import { readGuardedFile } from './file-access.js';
import { readSecretFile } from './secret-file.js';
import { Secret } from './secret.js';
import { SETTINGS } from './settings.js';

export interface WebConfig {
  host: string;
  port: number;
  codeFile: string;
  /** Both or neither: the page over HTTPS. */
  tls?: { certFile: string; keyFile: string };
}

/** Where the page listens, as a URL writes it: `0.0.0.0:8080`, `[::]:8080`. */
export function listenText(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export interface WebSecrets {
  code: Secret;
  tls?: { cert: string; key: string };
}

const LISTEN = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/;

/** `host:port` or `[v6]:port`; ports below 1024 would need a privilege the unit does not grant. */
export function listenAddress(form: string) {
  return text(form).transform((value, ctx) => {
    const match = LISTEN.exec(value);
    const host = match?.[1] ?? match?.[2];
    const port = Number(match?.[3]);
    const badHost = host === undefined || (match?.[1] !== undefined && isIP(host) !== 6);
    if (match === null || badHost || !Number.isInteger(port) || port > 65_535 || (port !== 0 && port < 1024)) {
      ctx.addIssue({ code: 'custom', message: must(form).error });
      return z.NEVER;
    }
    return { host, port };
  });
}

const MAX_CODE_BYTES = 1024;
export const MIN_CODE_LENGTH = 6;

/** Where the installer code lives on a hub: install.sh's drop-in and the package's unit hand it over. */
export const UNIT_CODE_FILE = '/etc/panic-pair/installer-code';
/**
 * What the Debian package's unit hands over while UNIT_CODE_FILE does not exist (SetCredential=
 * as LoadCredential='s fallback; packaging/deb/metadata.mjs): never a code, always refused.
 */
export const UNIT_CODE_PLACEHOLDER = 'panic-pair-no-installer-code-yet';

/** Reads the installer code (and the TLS pair) now, so a bad file stops start-up with exit 2. */
export function readWebSecrets(web: WebConfig): WebSecrets {
  const codeEnv = SETTINGS.webCodeFile.env;
  const code = readSecretFile(web.codeFile, codeEnv, MAX_CODE_BYTES).trim();
  if (code === UNIT_CODE_PLACEHOLDER) {
    throw new PanicPairError(
      'config',
      `${codeEnv}: the installer's page is on (${SETTINGS.webListen.env}) but has no installer code: write it, one line of at least ${MIN_CODE_LENGTH} characters, to ${UNIT_CODE_FILE} (chmod 600), then restart: sudo systemctl restart panic-pair`,
    );
  }
  if (code.length < MIN_CODE_LENGTH || /[\u0000-\u001f\u007f]/.test(code)) {
    throw new PanicPairError(
      'config',
      `${codeEnv} ${web.codeFile} must hold one line, the installer code, at least ${MIN_CODE_LENGTH} characters`,
    );
  }
  if (web.tls === undefined) return { code: new Secret(code) };
  const cert = readGuardedFile(web.tls.certFile, SETTINGS.webCertFile.env);
  const key = readSecretFile(web.tls.keyFile, SETTINGS.webKeyFile.env, 1 << 20);
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) {
    throw new PanicPairError('config', `${SETTINGS.webCertFile.env} ${web.tls.certFile} must be a PEM certificate`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    throw new PanicPairError('config', `${SETTINGS.webKeyFile.env} ${web.tls.keyFile} must be a PEM private key`);
  }
  return { code: new Secret(code), tls: { cert, key } };
}
