import { existsSync } from 'node:fs';
import path from 'node:path';
import { bootOrReason, type Container } from './container.js';
import { findExecutable } from './installed.js';
import { APT_UPDATES_RECIPE } from './test-roots.js';

// What the update suites need before they boot their hub: the host's tools for a signed repository
// and Node's headers for the package build; then the apt-updates suite's Debian 13 root.

export async function updateSuiteBoot(suite: string): Promise<Container | string> {
  const headers = path.join(path.dirname(process.execPath), '..', 'include', 'node', 'node_version.h');
  const missing = ['gpg', 'apt-ftparchive', 'dpkg-deb'].filter((tool) => findExecutable(tool) === undefined);
  const booted =
    missing.length > 0
      ? `not installed: ${missing.join(', ')} (apt-get install gpg apt-utils dpkg-dev)`
      : existsSync(headers)
        ? await bootOrReason(APT_UPDATES_RECIPE)
        : `no Node headers at ${headers} to build the package with`;
  if (typeof booted === 'string') process.stderr.write(`skipping the ${suite} suite: ${booted}\n`);
  return booted;
}
