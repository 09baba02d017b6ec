// The boot partition is FAT: every local user can read it, so the user-data that carried the
// secrets must not stay there. cloud-init keeps its own root-only copies under /var/lib/cloud.

/** Where Raspberry Pi OS mounts the boot partition (since bookworm); cloud-init's images have it there. */
export const BOOT_PARTITION = '/boot/firmware';
/** Where a NoCloud seed on a boot partition sits: Raspberry Pi OS's, and /boot on older layouts. */
export const SEED_DIRS: readonly string[] = [BOOT_PARTITION, '/boot'];

/** A line every provisioned user-data holds: the scrub replaces only a file that carries it. */
export const PROVISION_MARKER = '# Made by panic-pair provision.';

/**
 * What stays on the boot partition after first boot: valid user-data that asks for nothing (`{}`:
 * cloud-init warns about a cloud-config with no document at all), and why it is so.
 */
export const SCRUBBED_USER_DATA = [
  '#cloud-config',
  '# panic-pair: this hub was provisioned from this file at its first boot; its secrets were removed.',
  '{}',
  '',
].join('\n');

/**
 * A shell command for runcmd: the provisioned user-data on a seed directory is overwritten and
 * removed (shred), then replaced by SCRUBBED_USER_DATA, so NoCloud still finds a seed with the same
 * meta-data at the next boot and runs nothing again. Safe to run any number of times.
 */
export function scrubCommand(): string {
  const stub = SCRUBBED_USER_DATA.trimEnd()
    .split('\n')
    .map((line) => `'${line}'`)
    .join(' ');
  return [
    `for dir in ${SEED_DIRS.join(' ')}; do`,
    '  file="$dir/user-data"',
    `  if [ -f "$file" ] && grep -qF '${PROVISION_MARKER}' "$file"; then`,
    '    shred --remove "$file" 2>/dev/null || rm -f "$file"',
    `    printf '%s\\n' ${stub} > "$file"`,
    '  fi',
    'done',
    'sync',
  ].join('\n');
}
