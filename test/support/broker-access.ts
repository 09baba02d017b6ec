import { execFileSync } from 'node:child_process';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, findLibraryFile } from './installed.js';

// How a test mosquitto decides who may do what, as brokers on hubs are set up: a password file
// (mosquitto_passwd), an acl_file, or the dynamic-security plugin, which answers a subscription
// it denies with a refusal (0x80, 0x87 under MQTT 5) where acl_file grants it and stays silent.

/** One entry of a dynamic-security role, e.g. { acltype: 'subscribePattern', topic: 'p/announce', allow: true }. */
export interface DynsecAcl {
  acltype: 'publishClientSend' | 'publishClientReceive' | 'subscribePattern' | 'subscribeLiteral' | 'unsubscribePattern';
  topic: string;
  allow: boolean;
}

export interface BrokerAccess {
  /** Name to password; only these may connect. */
  users?: Record<string, string>;
  /** acl_file lines, e.g. ['user hub', 'topic read p/announce']. */
  acl?: string[];
  /** The dynamic-security plugin with these roles (a user's ACL entries); users without one may do nothing. */
  dynsec?: Record<string, DynsecAcl[]>;
}

/** mosquitto.conf lines for `access`, with the files they name written into `dir`. */
export function accessLines(dir: string, access: BrokerAccess): string[] {
  if (access.dynsec !== undefined) return dynsecLines(dir, access.users ?? {}, access.dynsec);
  if (access.users === undefined) return ['allow_anonymous true'];
  const lines = [`password_file ${writePasswordFile(dir, access.users)}`, 'allow_anonymous false'];
  if (access.acl !== undefined) {
    const file = path.join(dir, 'acl');
    writeFileSync(file, `${access.acl.join('\n')}\n`, { mode: 0o600 });
    lines.push(`acl_file ${file}`);
  }
  return lines;
}

function dynsecLines(dir: string, users: Record<string, string>, roles: Record<string, DynsecAcl[]>): string[] {
  const plugin = dynsecPlugin();
  const file = path.join(dir, 'dynamic-security.json');
  // The plugin's own format: PBKDF2-SHA512 over the password with a random salt.
  const clients = Object.entries(users).map(([username, password]) => {
    const salt = randomBytes(12);
    return {
      username,
      salt: salt.toString('base64'),
      iterations: 101,
      password: pbkdf2Sync(password, salt, 101, 64, 'sha512').toString('base64'),
      roles: roles[username] === undefined ? [] : [{ rolename: `role-${username}` }],
    };
  });
  const config = {
    clients,
    roles: Object.entries(roles).map(([username, acls]) => ({ rolename: `role-${username}`, acls })),
    defaultACLAccess: { publishClientSend: false, publishClientReceive: true, subscribe: false, unsubscribe: true },
  };
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return ['allow_anonymous false', `plugin ${plugin}`, `plugin_opt_config_file ${file}`];
}

/** The plugin comes with Debian's mosquitto, under the architecture's library directory. */
function dynsecPlugin(): string {
  const name = 'mosquitto_dynamic_security.so';
  const found = findLibraryFile(name);
  if (found === undefined) throw new Error(`${name} not found: it comes with the mosquitto package`);
  return found;
}

function writePasswordFile(dir: string, users: Record<string, string>): string {
  const file = path.join(dir, 'passwords');
  writeFileSync(file, Object.entries(users).map(([user, password]) => `${user}:${password}\n`).join(''), { mode: 0o600 });
  // mosquitto only reads hashed entries; `-U` hashes the plain ones in place.
  execFileSync(findExecutable('mosquitto_passwd') ?? 'mosquitto_passwd', ['-U', file]);
  return file;
}
