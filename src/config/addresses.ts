// The two network addresses in the configuration: the panic-api and the MQTT broker.
import { isIPv4 } from 'node:net';
import { z } from 'zod';
import { must, text } from './fields.js';

/** 127.0.0.0/8, ::1 and localhost: a request to them never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}

const API_PATH = /\/panic-api\/v2$/;

/**
 * The API's base address, normalised so the client can append `/panic-api/v2/...`: no trailing
 * slash, and a trailing `/panic-api/v2` (what installers often paste) removed rather than doubled.
 */
export function apiUrl(form: string) {
  return text(form).transform((value, ctx) => {
    const problem = (message: string): never => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER as never;
    };
    const url = parse(value);
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) return problem(must(form).error);
    if (url.username !== '' || url.password !== '') {
      return problem('must not hold a user name or password: the token comes from PANIC_PAIR_API_TOKEN_FILE');
    }
    if (url.search !== '' || url.hash !== '') return problem('must be a base address, without ?query or #fragment');
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      return problem(
        'must use https: the bearer token must not cross a network in clear (http is accepted only for 127.0.0.0/8, ::1 and localhost)',
      );
    }
    const path = url.pathname.replace(/\/+$/, '').replace(API_PATH, '').replace(/\/+$/, '');
    return `${url.protocol}//${url.host}${path}`;
  });
}

/** mqtt: or mqtts:; a plain mqtt: broker on the LAN is common and allowed. */
export function mqttUrl(form: string) {
  return text(form).superRefine((value, ctx) => {
    const url = parse(value);
    if (url === undefined || (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') || url.hostname === '') {
      ctx.addIssue({ code: 'custom', message: must(form).error });
    } else if (url.username !== '' || url.password !== '') {
      ctx.addIssue({
        code: 'custom',
        message: 'must not hold a user name or password: use PANIC_PAIR_MQTT_USERNAME and PANIC_PAIR_MQTT_PASSWORD_FILE',
      });
    }
  });
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * An address as it may be echoed in a message: everything before its last `@` blanked, the scheme
 * kept. Also without a scheme (`hub:hunter2@broker.lan`) and with a `/` or `?` in the password,
 * which the config-file fuzz target found echoed whole.
 */
export function withoutUserInfo(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^]*@/, (_match, scheme: string | undefined) => `${scheme ?? ''}[redacted]@`);
}
