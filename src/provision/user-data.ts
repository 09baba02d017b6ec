// The #cloud-config user-data for one hub: the settings and the secrets in
// owner-only files, the unit enabled and restarted once they are in place, then the secrets taken
// off the boot partition. A pure function of the hub: the same input gives the same file.
import { UNIT_TOKEN_FILE } from '../check/token-check.js';
import { DEFAULT_CONFIG_FILE } from '../config/locations.js';
import { UNIT_CODE_FILE } from '../config/web.js';
import { BOOT_PARTITION, PROVISION_MARKER, scrubCommand } from './boot-partition.js';
import { yamlLines, type YamlValue } from './cloud-config-yaml.js';
import type { ProvisionedHub } from './hub.js';

/** Not a setting: which hub this card was made for, for people and for `bridge-config --hub-id`. */
export const HUB_ID_FILE = '/etc/panic-pair/hub-id';
const UNIT = 'panic-pair.service';

export function userDataFor(hub: ProvisionedHub): string {
  const header = [
    '#cloud-config',
    PROVISION_MARKER,
    `# ${hub.hubId === undefined ? 'A hub' : `Hub ${hub.hubId}`}: customer ${hub.customerId}, API ${hub.apiUrl}.`,
    '# It holds secrets: put it on the boot partition as user-data and nowhere else. At first boot',
    '# cloud-init writes them to owner-only files, restarts panic-pair, and removes them from there.',
  ];
  const document: Record<string, YamlValue> = {
    write_files: [...secretFiles(hub), ...settingFiles(hub)],
    // runcmd runs at the end of first boot (scripts-user), after every file above is written and
    // any package is installed; a restart then starts the daemon with its settings whatever it did
    // earlier in the boot. Each command is safe to run again.
    runcmd: [
      ...packageInstall(hub),
      ['systemctl', 'enable', UNIT],
      ['systemctl', 'restart', UNIT],
      ['sh', '-c', scrubCommand()],
    ],
  };
  return `${[...header, ...yamlLines(document)].join('\n')}\n`;
}

/**
 * The package from the boot partition, its dependencies (nodejs) from the image's apt sources.
 * config.json is written before it (write_files runs early in the boot): the package's conffile
 * must not replace it, hence --force-confold.
 */
function packageInstall(hub: ProvisionedHub): YamlValue[] {
  if (hub.debOnBoot === undefined) return [];
  const deb = `${BOOT_PARTITION}/${hub.debOnBoot}`;
  return [['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', '--no-install-recommends', '-o', 'Dpkg::Options::=--force-confold', deb]];
}

function secretFiles(hub: ProvisionedHub): YamlValue[] {
  const files = ownerOnly(UNIT_TOKEN_FILE, hub.token.reveal());
  if (hub.web !== undefined) files.push(...ownerOnly(UNIT_CODE_FILE, hub.web.code.reveal()));
  return files;
}

function settingFiles(hub: ProvisionedHub): YamlValue[] {
  const config: Record<string, string | number> = { apiUrl: hub.apiUrl, customerId: hub.customerId };
  if (hub.mqttUrl !== undefined) config.mqttUrl = hub.mqttUrl;
  if (hub.web !== undefined) config.webListen = hub.web.listen;
  const files = [readable(DEFAULT_CONFIG_FILE, `${JSON.stringify(config, null, 2)}\n`)];
  if (hub.hubId !== undefined) files.push(readable(HUB_ID_FILE, `${hub.hubId}\n`));
  return files;
}

/**
 * Two entries for one secret file: cloud-init opens a new file with the default mode (0644) and
 * chmods it after writing, so the first entry makes the file empty and 0600, and the second writes
 * the secret into a file already closed to others (an existing file keeps its mode when opened).
 */
function ownerOnly(path: string, secret: string): YamlValue[] {
  const file = { path, owner: 'root:root', permissions: '0600' };
  return [
    { ...file, content: '' },
    { ...file, content: `${secret}\n` },
  ];
}

function readable(path: string, content: string): YamlValue {
  return { path, owner: 'root:root', permissions: '0644', content };
}
