// One hub's provisioning settings, checked as the daemon on the hub would check them, so that a card
// is refused on the vendor's desk rather than at the hub's first boot.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { apiUrl, mqttUrl, withoutUserInfo } from '../config/addresses.js';
import { GuardedFileError, readGuardedFile } from '../config/file-access.js';
import { Secret } from '../config/secret.js';
import { SETTINGS } from '../config/settings.js';
import { listenAddress, listenText, MIN_CODE_LENGTH } from '../config/web.js';
import { ProvisionInputError } from './errors.js';

export interface ProvisionedHub {
  /** Names the batch file and /etc/panic-pair/hub-id; none for a single hub made without --hub-id. */
  readonly hubId: string | undefined;
  readonly apiUrl: string;
  readonly customerId: number;
  readonly token: Secret;
  /** The installer's page: its code and where it listens. */
  readonly web: { readonly code: Secret; readonly listen: string } | undefined;
  readonly mqttUrl: string | undefined;
  /** A .deb copied to the boot partition beside user-data, installed at first boot; none: the image has the package. */
  readonly debOnBoot: string | undefined;
}

/** Where a value came from, for messages: a flag, or a row and a column of the batch. */
export interface Field {
  readonly field: string;
  readonly row?: number | undefined;
}

/** Letters, digits, `-`, `_` and `.`: safe in a file name and in an MQTT topic (no `/`, `+`, `#`). */
const HUB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const CUSTOMER_ID = /^\d+$/;
const MAX_SECRET_BYTES = 16 * 1024;
/** The page's address when a code is given and no --web-listen: every interface, an unprivileged port. */
export const DEFAULT_WEB_LISTEN = '0.0.0.0:8080';

export function hubIdOf(value: string, where: Field): string {
  const id = value.trim();
  if (!HUB_ID.test(id)) {
    throw new ProvisionInputError(
      where,
      `must be 1 to 63 letters, digits, "-", "_" or "." (starting with a letter or digit), not ${JSON.stringify(value)}`,
    );
  }
  return id;
}

export function customerIdOf(value: string, where: Field): number {
  const text = value.trim();
  const id = Number(text);
  if (!CUSTOMER_ID.test(text) || !Number.isSafeInteger(id) || id < 1) {
    throw new ProvisionInputError(where, `must be a customer id, a positive integer, not ${JSON.stringify(value)}`);
  }
  return id;
}

export function apiUrlOf(value: string, where: Field): string {
  return parsed(apiUrl(SETTINGS.apiUrl.form), value, where);
}

export function mqttUrlOf(value: string, where: Field): string {
  return parsed(mqttUrl(SETTINGS.mqttUrl.form), value, where);
}

export function webListenOf(value: string, where: Field): string {
  const { host, port } = parsed(listenAddress(SETTINGS.webListen.form), value, where);
  return listenText(host, port);
}

/**
 * The package to install from the boot partition: a .deb that exists here (a typo is caught on the
 * vendor's desk), named on the card by its file name alone.
 */
export function debOnBootOf(path: string, where: Field): string {
  const name = basename(path);
  if (!/^[A-Za-z0-9][A-Za-z0-9._+~-]*\.deb$/.test(name)) {
    throw new ProvisionInputError(where, `must be a Debian package file, panic-pair_<version>_<arch>.deb, not ${JSON.stringify(path)}`);
  }
  if (!existsSync(path)) throw new ProvisionInputError(where, `${path} does not exist`);
  return name;
}

function parsed<T>(schema: z.ZodType<T>, value: string, where: Field): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // The first issue's message already says "must be ..."; an address is shown without user info.
  const problem = result.error.issues[0]?.message ?? 'is not valid';
  throw new ProvisionInputError(where, `${problem}; got ${JSON.stringify(withoutUserInfo(value))}`);
}

/** The token in a file: one line, no spaces or control characters, as the daemon accepts it. */
export function tokenFrom(path: string, where: Field): Secret {
  const token = secretText(path, where);
  if (/[\s\u0000-\u001f\u007f]/.test(token)) {
    throw new ProvisionInputError(where, `${path} holds spaces, several lines or control characters; it must hold the API token alone`);
  }
  return new Secret(token);
}

/** The installer code in a file: one line of at least MIN_CODE_LENGTH characters, as the page accepts it. */
export function webCodeFrom(path: string, where: Field): Secret {
  const code = secretText(path, where);
  if (code.length < MIN_CODE_LENGTH || /[\u0000-\u001f\u007f]/.test(code)) {
    throw new ProvisionInputError(where, `${path} must hold one line, the installer code, at least ${MIN_CODE_LENGTH} characters`);
  }
  return new Secret(code);
}

function secretText(path: string, where: Field): string {
  let text: string;
  try {
    text = readGuardedFile(path, 'file', undefined, MAX_SECRET_BYTES);
  } catch (error) {
    // "file <path> does not exist", "... cannot be read by this user": the path, never the content.
    const problem = error instanceof GuardedFileError ? error.problem.replace(/^file /, '') : `${path} cannot be read`;
    throw new ProvisionInputError(where, problem, { cause: error });
  }
  const trimmed = text.trim();
  if (trimmed === '') throw new ProvisionInputError(where, `${path} is empty`);
  return trimmed;
}
