// The installer's page: an HTTP(S) server in the daemon, loaded only when
// PANIC_PAIR_WEB_LISTEN is set. Every request passes the Host check, then the session and origin
// checks its route needs; the page reaches the engine only through PageHandlers.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { hostname } from 'node:os';
import { listenText, type WebConfig, type WebSecrets } from '../config/web.js';
import { PanicPairError, messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { readBody, sendJson } from '../http/json-io.js';
import { PageActivity } from './activity.js';
import { loadAssets, type Asset } from './assets.js';
import { allowedHost, sameOrigin, setSecurityHeaders } from './guards.js';
import { LiveChannel } from './live.js';
import type { PageHandlers } from './port.js';
import { boundServer, MAX_BODY_BYTES, refusal, refuse, serverOptions, tooLarge } from './request-bounds.js';
import { pageAction } from './routes.js';
import { clearedSessionCookie, sessionCookie, Sessions } from './sessions.js';
import { SignInGate } from './sign-in.js';

export type { PageHandlers, HouseholdMember } from './port.js';

export interface WebPage {
  /** Where it listens, e.g. http://127.0.0.1:8080 (the port resolved when 0 was asked). */
  url: string;
  /** The port it listens on: the one asked for, or the one chosen for 0. */
  port: number;
  close(): Promise<void>;
}

export interface WebPageOptions {
  config: WebConfig;
  secrets: WebSecrets;
  handlers: PageHandlers;
  logger: Logger;
  /** Where sessions survive a restart (in the state dir); none: a restart signs everyone out. */
  sessionsFile?: string;
  /** The hub's host name, for the Host check; the system's by default. */
  hubName?: string;
}

export async function startWebPage(options: WebPageOptions): Promise<WebPage> {
  const { config, secrets, handlers } = options;
  const logger = options.logger.child({ component: 'web' });
  const https = secrets.tls !== undefined;
  const scheme = https ? 'https' : 'http';
  const hubName = options.hubName ?? hostname();
  const assets = loadAssets();
  const sessions = new Sessions({
    file: options.sessionsFile,
    onSaveError: (error) => logger.warn({ err: messageOf(error) }, 'page: sessions could not be saved; a restart signs everyone out'),
  });
  await sessions.restore();
  const gate = new SignInGate(secrets.code);
  let live: LiveChannel | undefined;
  const activity = new PageActivity(handlers, logger, () => live?.changed());
  live = new LiveChannel(handlers, activity, logger);
  const channel = live;
  handlers.onChange(() => channel.changed());

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    setSecurityHeaders(response);
    const address = request.socket.remoteAddress ?? 'unknown';
    const outOfBounds = refusal(request);
    if (outOfBounds !== undefined) return refuse(response, outOfBounds);
    if (!allowedHost(request.headers.host, hubName)) {
      logger.warn({ address, host: request.headers.host?.slice(0, 100) }, 'page: request for an unknown host refused');
      return sendJson(response, 421, { error: 'unknown host name; use the hub\'s address' });
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const method = request.method ?? 'GET';
    const session = sessions.touch(request);

    if (method === 'GET' || method === 'HEAD') {
      const file = assets.files.get(path);
      // Revalidated each time (a few KB on the LAN): after an upgrade no old script meets a new hub.
      if (file !== undefined) return sendAsset(response, file, 'no-cache');
      if (path === '/') return sendAsset(response, session === undefined ? assets.signIn() : assets.app, 'no-store');
      return sendJson(response, 404, { error: 'not found' });
    }
    if (method !== 'POST') return sendJson(response, 405, { error: 'method not allowed' });
    // Everything below changes state or opens the live channel: the page's own origin only.
    if (!sameOrigin(request, scheme)) {
      logger.warn({ address, path, origin: request.headers.origin?.slice(0, 100) }, 'page: cross-origin request refused');
      return sendJson(response, 403, { error: 'cross-origin request refused' });
    }
    if (path === '/login') return signIn(request, response, address);
    if (path === '/logout') {
      // Also without a live session (it may have ended while idle): the cookie goes either way.
      if (session !== undefined) sessions.close(session);
      logger.info({ address }, 'page: signed out');
      response.setHeader('Set-Cookie', clearedSessionCookie(https));
      return redirectHome(response);
    }
    if (session === undefined) return sendJson(response, 401, { error: 'sign in first' });
    switch (path) {
      case '/api/live':
        if (!channel.listen(response, () => sessions.isLive(session))) return sendJson(response, 503, { error: 'too many live pages open' });
        return;
      case '/api/pair':
      case '/api/window':
      case '/api/forget':
      case '/api/check':
        return pageAction(path, request, response, { activity, handlers, address });
      default:
        return sendJson(response, 404, { error: 'not found' });
    }
  };

  const signIn = async (request: IncomingMessage, response: ServerResponse, address: string): Promise<void> => {
    const body = await readBody(request, MAX_BODY_BYTES);
    // Not a guess: a body that large holds no installer code, and counting it would let anyone
    // block an address with five requests that carry none.
    if (body === undefined) return refuse(response, tooLarge);
    const code = new URLSearchParams(body).get('code') ?? '';
    const verdict = gate.attempt(address, code);
    logger.info({ address, verdict }, 'page: sign-in attempt');
    if (verdict === 'blocked') {
      response.setHeader('Retry-After', '60');
      return sendAsset(response, assets.signIn('blocked'), 'no-store', 429);
    }
    if (verdict === 'wrong') {
      return sendAsset(response, assets.signIn('wrong'), 'no-store', 401);
    }
    response.setHeader('Set-Cookie', sessionCookie(sessions.open(), https));
    return redirectHome(response);
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    serve(request, response).catch((error: unknown) => {
      // Nothing a browser sends may stop the daemon.
      logger.error({ err: messageOf(error) }, 'page: request failed');
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
      else response.destroy();
    });
  };
  const server: Server = https
    ? createHttpsServer({ ...serverOptions(), cert: secrets.tls?.cert, key: secrets.tls?.key }, handle)
    : createHttpServer(serverOptions(), handle);
  boundServer(server);
  await listen(server, config);
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : config.port;
  const url = `${scheme}://${listenText(config.host, port)}`;
  logger.info({ url }, "installer's page listening");

  return {
    url,
    port,
    async close() {
      activity.stop();
      channel.close();
      await sessions.settled();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function sendAsset(response: ServerResponse, asset: Asset, cache: string, status = 200): void {
  response.writeHead(status, { 'content-type': asset.type, 'content-length': asset.body.length, 'cache-control': cache });
  response.end(asset.body);
}

function redirectHome(response: ServerResponse): void {
  response.writeHead(303, { location: '/', 'cache-control': 'no-store', 'content-length': 0 });
  response.end();
}

function listen(server: Server, config: WebConfig): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new PanicPairError('config', `PANIC_PAIR_WEB_LISTEN ${config.host}:${config.port} cannot be used: ${error.code ?? error.message}`, { cause: error })),
    );
    server.listen({ host: config.host, port: config.port }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      resolve();
    });
  });
}
