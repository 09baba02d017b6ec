// The repository's key, through gpg: which key --key-id names, the signatures a hub's apt checks
// (InRelease and Release.gpg), the public keyring a hub is given, and a check of the signatures
// with gpgv against that keyring, as apt itself checks them.
import { execFileSync, spawnSync } from 'node:child_process';
import { RepoError } from './repo-error.mjs';

/** Where gpg looks for keys: GNUPGHOME when set, as gpg itself reads it. */
export function keyHome() {
  return process.env.GNUPGHOME ?? '~/.gnupg';
}

/**
 * The fingerprint of the one secret key --key-id names (a fingerprint, a long or short id, an
 * email), so that exactly that key signs and is exported, never every key an email matches.
 */
export function resolveKey(keyId) {
  const listed = spawnSync('gpg', ['--batch', '--with-colons', '--list-secret-keys', '--', keyId], { encoding: 'utf8' });
  if (listed.error) throw new RepoError(`gpg not found (${listed.error.message}): apt-get install gpg`);
  const lines = listed.status === 0 ? listed.stdout.split('\n') : [];
  const primaries = [];
  lines.forEach((line, index) => {
    if (!line.startsWith('sec:')) return;
    const fpr = lines.slice(index + 1).find((next) => next.startsWith('fpr:'));
    if (fpr !== undefined) primaries.push({ fingerprint: fpr.split(':')[9], capabilities: line.split(':')[11] ?? '' });
  });
  if (primaries.length === 0) {
    throw new RepoError(`--key-id ${keyId}: no secret key with that id in ${keyHome()} (gpg --list-secret-keys; GNUPGHOME chooses another keyring)`);
  }
  if (primaries.length > 1) {
    throw new RepoError(`--key-id ${keyId}: ${primaries.length} secret keys match; give one fingerprint (${primaries.map((key) => key.fingerprint).join(', ')})`);
  }
  const [key] = primaries;
  // Field 12 of `sec` holds the usable capabilities of the key and its subkeys, upper case.
  if (!key.capabilities.includes('S')) throw new RepoError(`--key-id ${keyId}: key ${key.fingerprint} cannot sign (expired, revoked or no signing subkey)`);
  return key.fingerprint;
}

/** InRelease (the Release, clearsigned) and Release.gpg (a detached signature), as apt reads them. */
export function signRelease(fingerprint, release, { inRelease, detached }) {
  const gpg = (...args) => {
    try {
      execFileSync('gpg', ['--batch', '--yes', '--quiet', '--local-user', fingerprint, '--digest-algo', 'SHA512', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      // A key behind a passphrase asks through gpg-agent's pinentry; with none at hand, gpg says so here.
      throw new RepoError(`gpg could not sign with ${fingerprint}: ${String(error.stderr ?? error.message).trim()}`);
    }
  };
  gpg('--clearsign', '--output', inRelease, release);
  gpg('--armor', '--detach-sign', '--output', detached, release);
}

/** The public key alone, as a binary keyring: what `Signed-By:` names on a hub. */
export function publicKeyring(fingerprint) {
  return execFileSync('gpg', ['--batch', '--export', '--export-options', 'export-minimal', fingerprint], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Checks both signatures against the keyring a hub is given, with gpgv as apt does. */
export function verifyWith(keyring, { release, inRelease, detached }) {
  for (const args of [[inRelease], [detached, release]]) {
    const result = spawnSync('gpgv', ['--keyring', keyring, ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new RepoError(`the signature does not verify with ${keyring}: ${(result.stderr ?? '').trim()}`);
  }
}
