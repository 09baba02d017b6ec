#!/usr/bin/env node
// `npm run apt-repo -- --key-id K [--suite stable|canary|…] [--url URL] [--debs DIR] [--out DIR]`
// turns the packages in build/deb/ into a signed apt repository in build/apt/, with Debian's own
// tools: apt-ftparchive indexes, gpg signs, gpgv checks. Beside the archive it writes the public
// keyring and a deb822 .sources file, the two files a hub needs to follow it. A run (re)writes one
// suite; the pool is shared, so promoting a version from canary to stable is a second run with
// the same packages and --suite stable. See docs/operator/install.md and docs/operator/updates.md.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { addToPool, packagesIn, writeSuite } from './archive.mjs';
import { RepoError } from './repo-error.mjs';
import { publicKeyring, resolveKey, signRelease, verifyWith } from './signing.mjs';
import { DEFAULT_SUITE, KEYRING_NAME, PLACEHOLDER_URL, sourcesFile, sourcesName, urlProblem } from './sources.mjs';

const USAGE = 'usage: npm run apt-repo -- --key-id K [--suite stable] [--url URL] [--debs build/deb] [--out build/apt]';
const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** A suite names a folder and a line of the .sources: Debian's own names are lower case, digits, `.`, `+`, `-`. */
const SUITE_NAME = /^[a-z0-9][a-z0-9.+-]*$/;

try {
  main();
} catch (error) {
  const exitCode = error instanceof RepoError ? error.exitCode : 1;
  process.stderr.write(`npm run apt-repo: ${error instanceof Error ? error.message : String(error)}\n`);
  if (exitCode === 2) process.stderr.write(`${USAGE}\n`);
  process.exit(exitCode);
}

function main() {
  const options = readOptions();
  const started = performance.now();
  const fingerprint = resolveKey(options.keyId);
  const debs = packagesIn(options.debs);
  mkdirSync(options.out, { recursive: true });
  const pooled = addToPool(options.out, debs);
  const { release, arches } = writeSuite(options.out, options.suite, pooled, { description: `panic-pair packages, ${options.suite}` });
  const signatures = { release, inRelease: path.join(path.dirname(release), 'InRelease'), detached: path.join(path.dirname(release), 'Release.gpg') };
  signRelease(fingerprint, release, signatures);

  const keyring = path.join(options.out, KEYRING_NAME);
  const key = publicKeyring(fingerprint);
  // Other suites keep the signatures of the key they were built with: say so when it changes.
  const replaced = existsSync(keyring) && !readFileSync(keyring).equals(key);
  writeFileSync(keyring, key);
  verifyWith(keyring, signatures);
  const sources = path.join(options.out, sourcesName(options.suite));
  writeFileSync(sources, sourcesFile({ url: options.url, suite: options.suite }));

  const lines = [
    `${options.out}: suite ${options.suite} (${arches.join(', ')}), signed by ${fingerprint}, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    ...debs.map((deb) => `  ${deb.package} ${deb.version} ${deb.arch}`),
    `  hub files: ${keyring} -> /etc/apt/keyrings/, ${sources} -> /etc/apt/sources.list.d/panic-pair.sources`,
  ];
  if (options.urlIsPlaceholder) lines.push(`  note: URIs is the placeholder ${PLACEHOLDER_URL}; give the repository's address with --url`);
  if (replaced) lines.push(`  note: ${KEYRING_NAME} changed; hubs holding the old one refuse this suite until they get the new keyring`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function readOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'key-id': { type: 'string' },
        suite: { type: 'string', default: DEFAULT_SUITE },
        url: { type: 'string' },
        debs: { type: 'string', default: path.join(ROOT, 'build', 'deb') },
        out: { type: 'string', default: path.join(ROOT, 'build', 'apt') },
      },
    }));
  } catch (error) {
    throw new RepoError(error.message, 2);
  }
  const keyId = values['key-id'];
  if (keyId === undefined || keyId.trim() === '') throw new RepoError('--key-id is required: the gpg key that signs the repository (gpg --list-secret-keys)', 2);
  if (!SUITE_NAME.test(values.suite)) throw new RepoError(`--suite ${values.suite}: use lower-case letters, digits, '.', '+' or '-' (e.g. stable, canary)`, 2);
  const url = values.url ?? PLACEHOLDER_URL;
  const problem = urlProblem(url);
  if (problem !== undefined) throw new RepoError(problem, 2);
  return {
    keyId: keyId.trim(),
    suite: values.suite,
    url,
    urlIsPlaceholder: values.url === undefined,
    debs: path.resolve(values.debs),
    out: path.resolve(values.out),
  };
}
