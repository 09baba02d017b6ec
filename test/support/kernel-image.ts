import { existsSync, readdirSync } from 'node:fs';
import { chmod, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { niced, oneBuildAtATime, packagesFolder } from './checkout-package.js';
import { lastLines, runProcess } from './container-root.js';

// The disk a kernel guest boots (kernel-guest.ts): the cached root of its architecture, the
// guest's own files, and the package installed by dpkg, made into an ext4 image once per run for
// each architecture and package, in the run's packages folder. Every guest boots it with qemu's
// snapshot=on: its writes go to a temporary file of that qemu's own and vanish with it, so the
// suites share one image and never see each other's state. Made by whichever asks first: the
// run's global setup in the background of the suites that boot no kernel, or the first kernel suite.

const GUEST_FILES = path.join(import.meta.dirname, 'kernel-guest');
export const GUEST_DIR = 'usr/local/lib/panic-pair-test';
const IMAGE_SIZE = '2G';

/** The image of `root` (a cached root's folder) with `deb` installed (none when undefined), made on first use in the run. */
export async function kernelImage(root: string, deb: string | undefined, options: { background?: boolean } = {}): Promise<string> {
  const name = `${path.basename(root)}-${deb === undefined ? 'no-package' : path.basename(deb, '.deb')}.ext4`;
  const image = path.join(packagesFolder(), name);
  if (existsSync(image)) return image;
  return oneBuildAtATime('kernel-image', async () => {
    if (existsSync(image)) return image;
    const scratch = `${image}.building-${process.pid}`;
    await rm(scratch, { recursive: true, force: true });
    try {
      await makeImage(root, scratch, deb, options.background === true);
      await rename(path.join(scratch, 'root.ext4'), image);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    return image;
  });
}

/** The cached root copied, the guest's files and the .deb added, made into `scratch`/root.ext4. */
async function makeImage(root: string, scratch: string, deb: string | undefined, background: boolean): Promise<void> {
  const must = async (...commandLine: string[]): Promise<void> => {
    const [command, ...args] = background ? niced(commandLine) : commandLine;
    const result = await runProcess(command!, args, { timeoutMs: 5 * 60_000 });
    if (result.code !== 0) throw new Error(`${commandLine.join(' ')} exited ${result.code}: ${lastLines(`${result.stdout}\n${result.stderr}`)}`);
  };
  await mkdir(scratch, { recursive: true });
  const tree = path.join(scratch, 'root');
  await must('cp', '-a', '--reflink=auto', root, tree);
  const guestDir = path.join(tree, GUEST_DIR);
  await mkdir(guestDir, { recursive: true });
  for (const file of readdirSync(GUEST_FILES)) await copyFile(path.join(GUEST_FILES, file), path.join(guestDir, file));
  await chmod(path.join(guestDir, 'guest-init.sh'), 0o755);
  if (deb !== undefined) {
    await copyFile(deb, path.join(tree, 'root', path.basename(deb)));
    // dpkg as on a hub; its scripts see no running systemd, so nothing is started.
    await must('chroot', tree, 'dpkg', '-i', `/root/${path.basename(deb)}`);
  }
  await must('mke2fs', '-q', '-t', 'ext4', '-d', tree, '-F', path.join(scratch, 'root.ext4'), IMAGE_SIZE);
}
