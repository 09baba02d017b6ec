// The checks every request of the installer's page passes before anything else:
// the Host a browser asked for (against DNS rebinding), the origin of state-changing requests
// (against cross-site requests), and the headers that keep the page out of frames and scripts
// out of the page.
import { isIP } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The hub's own names: its host name and <name>.local (mDNS); IP literals and localhost always pass. */
export function allowedHost(hostHeader: string | undefined, hubName: string): boolean {
  if (hostHeader === undefined || hostHeader.length > 255) return false;
  const host = hostOf(hostHeader);
  if (host === undefined) return false;
  if (host.startsWith('[')) return isIP(host.slice(1, -1)) === 6;
  if (isIP(host) === 4 || host === 'localhost') return true;
  const name = hubName.toLowerCase();
  return name !== '' && (host === name || host === `${name}.local`);
}

/** The host part of a Host header, lower case, without the port; undefined when malformed. */
function hostOf(header: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(header.trim());
  return match?.[1]?.toLowerCase().replace(/\.$/, '');
}

/**
 * A state-changing request (and the live channel) must come from the page itself: an Origin equal
 * to this server's own, or, where a browser sends no Origin, Sec-Fetch-Site: same-origin.
 */
export function sameOrigin(request: IncomingMessage, scheme: 'http' | 'https'): boolean {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin !== undefined) return host !== undefined && origin.toLowerCase() === `${scheme}://${host.toLowerCase()}`;
  return request.headers['sec-fetch-site'] === 'same-origin';
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** On every response, errors included. */
export function setSecurityHeaders(response: ServerResponse): void {
  response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('X-Frame-Options', 'DENY');
  // Not no-referrer: Chromium then sends `Origin: null` with the sign-in form, which the origin check refuses.
  response.setHeader('Referrer-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  response.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
}
