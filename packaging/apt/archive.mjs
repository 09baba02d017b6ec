// The repository's files, laid out as Debian's archives are (pool/ and dists/<suite>/) and indexed
// by apt-ftparchive: the packages in a pool every suite shares, one Packages index per
// architecture, and the suite's Release with the Origin and Label unattended-upgrades matches.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { RepoError } from './repo-error.mjs';

/** The Release's Origin and Label: what `Origins-Pattern { "origin=panic-pair"; }` selects. */
export const ORIGIN = 'panic-pair';
export const LABEL = 'panic-pair';
export const COMPONENT = 'main';

/** The .deb files directly in `dir`, each with the fields the index needs. */
export function packagesIn(dir) {
  const files = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.deb')).sort() : [];
  if (files.length === 0) throw new RepoError(`no .deb in ${dir}: build one first (npm run deb -- --arch amd64), or name another folder with --debs DIR`);
  return files.map((name) => {
    const file = path.join(dir, name);
    const fields = spawnSync('dpkg-deb', ['--field', file, 'Package', 'Version', 'Architecture'], { encoding: 'utf8' });
    if (fields.error) throw new RepoError(`dpkg-deb not found (${fields.error.message}): apt-get install dpkg-dev`);
    if (fields.status !== 0) throw new RepoError(`${file} is not a Debian package: ${fields.stderr.trim()}`);
    const value = (field) => fields.stdout.match(new RegExp(`^${field}: (.+)$`, 'm'))?.[1]?.trim() ?? '';
    return { file, name, package: value('Package'), version: value('Version'), arch: value('Architecture') };
  });
}

/** The architectures a suite lists: those of its packages; `all` packages go into each. */
export function architecturesOf(debs) {
  const arches = [...new Set(debs.map((deb) => deb.arch).filter((arch) => arch !== 'all'))].sort();
  return arches.length > 0 ? arches : ['all'];
}

/**
 * Copies each package into the pool, where Debian keeps it (pool/main/p/panic-pair/). A version
 * already there with other bytes is refused: hubs that indexed the first would reject the second
 * for its checksum, so a rebuild needs a new version.
 */
export function addToPool(root, debs) {
  return debs.map((deb) => {
    const relative = path.posix.join('pool', COMPONENT, deb.package.slice(0, 1), deb.package, deb.name);
    const target = path.join(root, relative);
    if (existsSync(target)) {
      if (!readFileSync(target).equals(readFileSync(deb.file))) {
        throw new RepoError(`${deb.name}: the pool already holds ${deb.package} ${deb.version} (${deb.arch}) with other contents; build it with a new version (npm run deb -- --version V)`);
      }
    } else {
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(deb.file, target);
    }
    return { ...deb, relative };
  });
}

/**
 * Writes dists/<suite>/ anew: one Packages index (and its .gz) per architecture, listing exactly
 * these packages, and the Release that names their checksums. Returns the Release's path.
 */
export function writeSuite(root, suite, pooled, { description }) {
  const dists = path.join(root, 'dists', suite);
  rmSync(dists, { recursive: true, force: true });
  const arches = architecturesOf(pooled);
  for (const arch of arches) {
    const members = pooled.filter((deb) => deb.arch === arch || deb.arch === 'all');
    // Run from the root, so that each Filename is relative to the repository's URL.
    const index = members.map((deb) => ftparchive(root, ['packages', deb.relative])).join('');
    const dir = path.join(dists, COMPONENT, `binary-${arch}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'Packages'), index);
    writeFileSync(path.join(dir, 'Packages.gz'), gzipSync(index, { level: 9 }));
  }
  const release = ftparchive(dists, [
    ...releaseField('Origin', ORIGIN),
    ...releaseField('Label', LABEL),
    ...releaseField('Suite', suite),
    ...releaseField('Codename', suite),
    ...releaseField('Architectures', arches.join(' ')),
    ...releaseField('Components', COMPONENT),
    ...releaseField('Description', description),
    'release',
    '.',
  ]);
  const file = path.join(dists, 'Release');
  writeFileSync(file, release);
  return { release: file, arches };
}

function releaseField(name, value) {
  return ['-o', `APT::FTPArchive::Release::${name}=${value}`];
}

function ftparchive(cwd, args) {
  try {
    return execFileSync('apt-ftparchive', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    if (error.code === 'ENOENT') throw new RepoError('apt-ftparchive not found: apt-get install apt-utils');
    throw new RepoError(`apt-ftparchive ${args.at(-2)} ${args.at(-1)}: ${String(error.stderr ?? error.message).trim()}`);
  }
}
