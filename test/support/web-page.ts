import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './loopback.mjs';

// The installer's page of a daemon under test: its settings (a fresh code file, a free port) and
// raw HTTP requests with whatever Host, Origin and cookie a test wants to send.

export interface PageSettings {
  code: string;
  port: number;
  origin: string;
  env: Record<string, string>;
}

export async function pageSettings(options: { tls?: { certFile: string; keyFile: string } } = {}): Promise<PageSettings> {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-web-'));
  const code = 'hub-label-4711';
  const codeFile = path.join(dir, 'installer-code');
  writeFileSync(codeFile, `${code}\n`, { mode: 0o600 });
  const port = await freePort();
  const env: Record<string, string> = { PANIC_PAIR_WEB_LISTEN: `127.0.0.1:${port}`, PANIC_PAIR_WEB_CODE_FILE: codeFile };
  if (options.tls) {
    env.PANIC_PAIR_WEB_CERT_FILE = options.tls.certFile;
    env.PANIC_PAIR_WEB_KEY_FILE = options.tls.keyFile;
  }
  return { code, port, origin: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, env };
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  https?: boolean;
  /** Resolve once the headers arrive, with what the body held by then (a live channel never ends). */
  headersOnly?: boolean;
}

export function rawRequest(port: number, options: RawRequest = {}): Promise<RawReply> {
  const send = options.https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        rejectUnauthorized: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        if (options.headersOnly) {
          const settle = (): void => {
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
            response.destroy();
          };
          // The first line (a snapshot) or the end, whichever comes first.
          response.on('data', (chunk: string) => {
            body += chunk;
            if (body.includes('\n')) settle();
          });
          response.on('end', settle);
          return;
        }
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The sign-in form sent with `code`, from the page's own origin. */
export function postCode(page: Pick<PageSettings, 'port' | 'origin'>, code: string, https = false): Promise<RawReply> {
  return rawRequest(page.port, {
    method: 'POST',
    path: '/login',
    https,
    headers: { origin: page.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ code }).toString(),
  });
}

/** Signs in and returns the session cookie (name=value). */
export async function signIn(page: PageSettings, https = false): Promise<string> {
  const reply = await postCode(page, page.code, https);
  const cookie = [reply.headers['set-cookie'] ?? []].flat()[0];
  if (reply.status !== 303 || cookie === undefined) throw new Error(`sign-in failed: ${reply.status} ${reply.body}`);
  return cookie.split(';')[0] ?? '';
}
