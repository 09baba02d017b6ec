// The package's texts: control, copyright, changelog, and the unit adapted to the package's layout.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LICENSE_FILE } from './runtime-modules.mjs';

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

/**
 * What the package's unit hands the daemon as its installer code while /etc/panic-pair/installer-code
 * does not exist (systemd's SetCredential= is LoadCredential='s fallback). The daemon refuses it by
 * name, saying where the code goes: src/config/web.ts, UNIT_CODE_PLACEHOLDER.
 */
export const UNIT_CODE_PLACEHOLDER = 'panic-pair-no-installer-code-yet';

/**
 * The source unit, with the package's paths and two additions: it waits for its token, and it
 * hands over the installer's page code as a credential (install.sh writes a drop-in for that).
 */
export function unitFile(source) {
  const unit = source
    .replace(/^# panic-pair: .*\n# .*\n/, '# panic-pair: the pairing daemon on a home hub, from the panic-pair Debian package.\n# Settings: /etc/panic-pair/config.json and /etc/panic-pair/api-token; see install.md.gz.\n')
    .replace('Documentation=file:/opt/panic-pair/docs/operator/install.md', 'Documentation=file:/usr/share/doc/panic-pair/install.md.gz')
    .replace('ExecStart=/opt/panic-pair/bin/panic-pair.js run', 'ExecStart=/usr/bin/panic-pair run')
    .replace(
      /^(StartLimitBurst=.*)$/m,
      '$1\n# Installed before it is configured: it starts once the token is in place\n# (then `systemctl restart panic-pair`); until then `panic-pair check` says what is missing.\nConditionPathExists=/etc/panic-pair/api-token',
    )
    .replace(
      /^(LoadCredential=api-token:.*)$/m,
      [
        '$1',
        "# The installer's page (webListen in config.json) reads its code from /etc/panic-pair/installer-code",
        "# (one line, root's, 0600), handed over as a private copy. Until that file exists the credential",
        '# holds a placeholder, which the page refuses, saying where the code goes.',
        'LoadCredential=installer-code:/etc/panic-pair/installer-code',
        `SetCredential=installer-code:${UNIT_CODE_PLACEHOLDER}`,
        'Environment=PANIC_PAIR_WEB_CODE_FILE=%d/installer-code',
      ].join('\n'),
    );
  if (unit.includes('/opt/panic-pair') || !unit.includes('ConditionPathExists=') || !unit.includes('LoadCredential=installer-code:')) {
    throw new Error('systemd/panic-pair.service changed: adapt packaging/deb/metadata.mjs to it');
  }
  return unit;
}

/** When the package's changelog is dated: the last commit, so that builds of one commit agree. */
function buildEpoch() {
  return Number(process.env.SOURCE_DATE_EPOCH ?? execFileSync('git', ['log', '-1', '--format=%ct'], { encoding: 'utf8' }).trim());
}

/** The man page's date: the changelog's day. */
export function manDate() {
  return new Date(buildEpoch() * 1000).toISOString().slice(0, 10);
}

function buildDate() {
  return new Date(buildEpoch() * 1000).toUTCString().replace(/GMT$/, '+0000');
}

export function changelogFile(version) {
  return `panic-pair (${version}) unstable; urgency=medium\n\n  * Built from panic-pair ${version}; see README.md.gz.\n\n -- ${MAINTAINER}  ${buildDate()}\n`;
}

/** Licenses every Debian system holds the text of, in /usr/share/common-licenses. */
const COMMON_LICENSES = new Set(['Apache-2.0', 'MPL-2.0', 'GPL-2.0', 'GPL-3.0', 'LGPL-2.1', 'LGPL-3.0', 'CC0-1.0']);

/** A package's own license file, if it ships one. */
function licenseOf(dir) {
  try {
    const file = readdirSync(dir).find((name) => LICENSE_FILE.test(name));
    return file === undefined ? undefined : readFileSync(path.join(dir, file), 'utf8');
  } catch {
    return undefined;
  }
}

/** Text as a continuation of a field: each line indented by one space, an empty line as " .". */
const continued = (text) =>
  text
    .replace(/\r\n?/g, '\n')
    .trimEnd()
    .split('\n')
    .map((line) => (line.trim() === '' ? ' .' : ` ${line.replace(/\t/g, '    ').trimEnd()}`));

/**
 * panic-pair's own terms, then each third-party package in the bundle or beside it, with its
 * license and that license's text (MIT, ISC and BSD ask for their notice to go with the code).
 * `copied` are folders relative to `root` (node_modules/…, or the HCI module's sources).
 */
export function copyrightFile(metafile, copied, root) {
  const packages = new Map();
  const note = (dir) => {
    try {
      const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
      packages.set(`${manifest.name} ${manifest.version}`, { license: manifest.license ?? 'see the package', text: licenseOf(path.join(root, dir)) });
    } catch {
      // a folder that is not a package root
    }
  };
  for (const input of Object.keys(metafile.inputs)) {
    // The innermost package: node_modules/a/node_modules/b/x.js is b's.
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) note(match[1]);
  }
  for (const dir of copied) note(dir);
  const sorted = [...packages].sort(([a], [b]) => a.localeCompare(b));
  const texts = sorted.flatMap(([name, { license, text }]) => [
    ' .',
    ` ---- ${name} (${license}) ----`,
    ...(text === undefined ? [` (the package ships no license file; its package.json says ${license}${COMMON_LICENSES.has(license) ? `: /usr/share/common-licenses/${license}` : ''})`] : continued(text)),
  ]);
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
    ' own licenses, whose texts follow the list. @stoprocent/bluetooth-hci-socket is',
    " compiled from its sources with a change of panic-pair's: each socket's",
    ' descriptor is closed once (scripts/hci-module.mjs in the source).',
    ...sorted.map(([name, { license }]) => ` ${name}: ${license}`),
    ...texts,
  ].join('\n')}\n`;
}
