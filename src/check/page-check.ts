import { existsSync, readFileSync } from 'node:fs';
import type { Config } from '../config/index.js';
import { GuardedFileError } from '../config/file-access.js';
import { SETTINGS } from '../config/settings.js';
import { listenText, MIN_CODE_LENGTH, readWebSecrets, UNIT_CODE_FILE, type WebConfig } from '../config/web.js';
import { messageOf } from '../errors.js';
import { hubOnNetwork, PAGE_OFF, pageAddress, pageAddressText, type HubOnNetwork } from '../status/page-address.js';
import { fail, off, pass, type CheckResult } from './result.js';

export { UNIT_CODE_FILE };

const CODE_ENV = SETTINGS.webCodeFile.env;

/** The Debian package's unit, which always hands over the code (a placeholder until the file exists). */
const PACKAGE_UNIT = '/usr/lib/systemd/system/panic-pair.service';

/**
 * The environment `check` loads its settings from. Under the unit, PANIC_PAIR_WEB_CODE_FILE is
 * %d/installer-code: set by install.sh's drop-in whenever the unit's code file exists, and by the
 * package's unit always. A shell sees neither, so that file stands in for the credential, as the
 * daemon will get it, and a missing one is named as the daemon will name it.
 */
export function withUnitCodeFile(
  env: NodeJS.ProcessEnv,
  unitCodeFile: string = UNIT_CODE_FILE,
  packageUnit: string = PACKAGE_UNIT,
): NodeJS.ProcessEnv {
  if (env[CODE_ENV] !== undefined || env.CREDENTIALS_DIRECTORY !== undefined) return env;
  if (!existsSync(unitCodeFile) && !unitHandsOverCode(packageUnit)) return env;
  return { ...env, [CODE_ENV]: unitCodeFile };
}

function unitHandsOverCode(unit: string): boolean {
  try {
    return readFileSync(unit, 'utf8').includes('LoadCredential=installer-code:');
  } catch {
    return false;
  }
}

/**
 * The installer's page can start: what `run` reads before it listens (readWebSecrets, with the one
 * secret-file rule), read the same way, and where a phone opens it. The code itself is never shown.
 */
export function checkPage(config: Config, hub: HubOnNetwork = hubOnNetwork()): CheckResult {
  const web = config.web;
  if (web === undefined) return off('page', PAGE_OFF);
  try {
    readWebSecrets(web);
  } catch (error) {
    return { ...failureOf(web, error), readAtStart: true };
  }
  const scheme = web.tls === undefined ? 'HTTP' : 'HTTPS';
  const open = web.port === 0 ? 'a port chosen as the daemon starts: panic-pair status shows the address' : pageAddressText(pageAddress({ ...web, https: web.tls !== undefined }, hub));
  return pass('page', `${scheme} on ${listenText(web.host, web.port)}: ${open}; installer code in ${web.codeFile}, readable by its owner only`);
}

function failureOf(web: WebConfig, error: unknown): CheckResult {
  const detail = error instanceof GuardedFileError ? error.problem : messageOf(error);
  if (web.codeFile === UNIT_CODE_FILE && !existsSync(UNIT_CODE_FILE)) {
    return fail('page', `the installer's page is on, and its code file ${UNIT_CODE_FILE} does not exist`, `write the installer code (one line, at least ${MIN_CODE_LENGTH} characters) to ${UNIT_CODE_FILE}, chmod 600 ${UNIT_CODE_FILE}, then: sudo systemctl restart panic-pair`);
  }
  if (error instanceof GuardedFileError && error.fix !== undefined) return fail('page', detail, error.fix);
  if (/permission denied/.test(detail)) return fail('page', detail, 'run the check as root: sudo panic-pair check');
  if (detail.startsWith(CODE_ENV)) {
    return fail(
      'page',
      detail,
      `write the installer code (one line) to ${web.codeFile} and chmod 600 ${web.codeFile}, set ${CODE_ENV} to the file holding it, or run: sudo systemd/install.sh --web-code-file FILE`,
    );
  }
  return fail('page', detail, `set ${SETTINGS.webCertFile.env} and ${SETTINGS.webKeyFile.env} to a readable PEM certificate and its key, or unset both for HTTP`);
}
