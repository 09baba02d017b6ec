// The installer's page settings (CONTRACT section 11): where it listens, the installer code, and
// the certificate that turns it into HTTPS. Parsed here with the other settings; the code and the
// key are read by the daemon at start (readWebSecrets), never by the CLI's other commands.
import { isIP } from 'node:net';
import { z } from 'zod';
import { PanicPairError } from '../errors.js';
import { must, text } from './fields.js';
import { readGuardedFile } from './file-access.js';
import { Secret } from './secret.js';
import { SETTINGS } from './settings.js';

export interface WebConfig {
  host: string;
  port: number;
  codeFile: string;
  /** Both or neither: the page over HTTPS. */
  tls?: { certFile: string; keyFile: string };
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
const MIN_CODE_LENGTH = 6;

/** Reads the installer code (and the TLS pair) now, so a bad file stops start-up with exit 2. */
export function readWebSecrets(web: WebConfig): WebSecrets {
  const codeEnv = SETTINGS.webCodeFile.env;
  const guard = (path: string) => ({ forbidden: 0o066, fix: `chmod 600 ${path}` });
  const code = readGuardedFile(web.codeFile, codeEnv, guard(web.codeFile), MAX_CODE_BYTES).trim();
  if (code.length < MIN_CODE_LENGTH || /[\u0000-\u001f\u007f]/.test(code)) {
    throw new PanicPairError(
      'config',
      `${codeEnv} ${web.codeFile} must hold one line, the installer code, at least ${MIN_CODE_LENGTH} characters`,
    );
  }
  if (web.tls === undefined) return { code: new Secret(code) };
  const cert = readGuardedFile(web.tls.certFile, SETTINGS.webCertFile.env);
  const key = readGuardedFile(web.tls.keyFile, SETTINGS.webKeyFile.env, guard(web.tls.keyFile));
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) {
    throw new PanicPairError('config', `${SETTINGS.webCertFile.env} ${web.tls.certFile} must be a PEM certificate`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    throw new PanicPairError('config', `${SETTINGS.webKeyFile.env} ${web.tls.keyFile} must be a PEM private key`);
  }
  return { code: new Secret(code), tls: { cert, key } };
}
