// The package's texts: control, copyright, changelog, and the unit adapted to the package's layout.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The project, not whoever committed last or runs the build: the same source gives the same
 * package, and no one's personal address ships in it. `.invalid` (RFC 2606) until the project has
 * a list of its own; change it here.
 */
export const MAINTAINER = 'panic-pair maintainers <maintainers@panic-pair.invalid>';

/**
 * The HCI module uses Node-API, so any Node from 20.17 on runs the package: apt refuses Node 18 by
 * this, and NodeSource's nodejs satisfies it as Debian's does.
 */
export const NODE_DEPENDS = 'nodejs (>= 20.17)';

export function controlFile({ version, arch, libraries, installedKiB }) {
  return `${[
    'Package: panic-pair',
    `Version: ${version}`,
    `Architecture: ${arch}`,
    `Maintainer: ${MAINTAINER}`,
    `Installed-Size: ${installedKiB}`,
    `Depends: ${NODE_DEPENDS}, ${libraries}, systemd, passwd`,
    'Section: net',
    'Priority: optional',
    'Description: links panic buttons to a home hub\'s customer',
    ' panic-pair finds panic buttons over Bluetooth LE (the hub\'s own radio) or',
    ' MQTT (Zigbee2MQTT, BLE gateways), asks the panic-api v2 service whether the',
    ' customer holds an active subscription, and only then links the button.',
    ' .',
    ' This package runs it as the systemd service panic-pair. It starts once',
    ' /etc/panic-pair/config.json and the API token are in place: run',
    ' "panic-pair check" after installing.',
  ].join('\n')}\n`;
}

/** The source unit, with the package's paths and one addition: it waits for its token. */
export function unitFile(source) {
  const unit = source
    .replace(/^# panic-pair: .*\n# .*\n/, '# panic-pair: the pairing daemon on a home hub, from the panic-pair Debian package.\n# Settings: /etc/panic-pair/config.json and /etc/panic-pair/api-token; see install.md.gz.\n')
    .replace('Documentation=file:/opt/panic-pair/docs/install.md', 'Documentation=file:/usr/share/doc/panic-pair/install.md.gz')
    .replace('ExecStart=/opt/panic-pair/bin/panic-pair.js run', 'ExecStart=/usr/bin/panic-pair run')
    .replace(
      /^(StartLimitBurst=.*)$/m,
      '$1\n# Installed before it is configured: it starts once the token is in place\n# (then `systemctl restart panic-pair`); until then `panic-pair check` says what is missing.\nConditionPathExists=/etc/panic-pair/api-token',
    );
  if (unit.includes('/opt/panic-pair') || !unit.includes('ConditionPathExists=')) {
    throw new Error('systemd/panic-pair.service changed: adapt packaging/deb/metadata.mjs to it');
  }
  return unit;
}

/** When the package's changelog is dated: the last commit, so that builds of one commit agree. */
function buildEpoch() {
  return Number(process.env.SOURCE_DATE_EPOCH ?? execFileSync('git', ['log', '-1', '--format=%ct'], { encoding: 'utf8' }).trim());
}

function buildDate() {
  return new Date(buildEpoch() * 1000).toUTCString().replace(/GMT$/, '+0000');
}

export function changelogFile(version) {
  return `panic-pair (${version}) unstable; urgency=medium\n\n  * Built from panic-pair ${version}; see README.md.gz.\n\n -- ${MAINTAINER}  ${buildDate()}\n`;
}

/** panic-pair's own terms, then each third-party package in the bundle or beside it, with its license. */
export function copyrightFile(metafile, copied, root) {
  const packages = new Map();
  const note = (dir) => {
    try {
      const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
      packages.set(`${manifest.name} ${manifest.version}`, manifest.license ?? 'see the package');
    } catch {
      // a folder that is not a package root
    }
  };
  for (const input of Object.keys(metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) note(path.join('node_modules', match[1]));
  }
  for (const dir of copied) note(dir);
  const lines = [...packages].sort(([a], [b]) => a.localeCompare(b)).map(([name, license]) => ` ${name}: ${license}`);
  return `${[
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: panic-pair',
    '',
    'Files: *',
    `Copyright: ${new Date(buildEpoch() * 1000).getUTCFullYear()} the panic-pair authors`,
    'License: proprietary',
    ' All rights reserved; distributed to the hubs of its operator only.',
    '',
    'Files: usr/lib/panic-pair/dist/* usr/lib/panic-pair/node_modules/*',
    'Copyright: the authors of each package below',
    'License: various',
    ' The program bundles, or carries beside it, these npm packages under their',
    ' own licenses (their license texts are in usr/lib/panic-pair/node_modules or',
    ' in the npm registry):',
    ...lines,
  ].join('\n')}\n`;
}
