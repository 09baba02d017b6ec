// The one native module, @abandonware/bluetooth-hci-socket, compiled for the package's
// architecture on the build machine with Debian's cross compilers (g++-aarch64-linux-gnu,
// g++-arm-linux-gnueabihf) and the headers of the Node it is built for. Nothing is compiled on
// the hub. The module uses nan, not Node-API, so it loads only in the Node major it was compiled
// against: the package's Depends says which.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Debian's architecture names, the GNU triplet of its compilers and node-gyp's --arch. */
export const ARCHES = {
  amd64: { triplet: 'x86_64-linux-gnu', gypArch: 'x64', elf: 'x86-64' },
  arm64: { triplet: 'aarch64-linux-gnu', gypArch: 'arm64', elf: 'ARM aarch64' },
  armhf: { triplet: 'arm-linux-gnueabihf', gypArch: 'arm', elf: 'ARM, EABI5' },
};

/** The Node major the headers under `nodedir` (its include/node) are for. */
export function headersMajor(nodedir) {
  const header = path.join(nodedir, 'include', 'node', 'node_version.h');
  if (!existsSync(header)) {
    throw new Error(`no Node headers at ${header}: install them (NodeSource's nodejs has them, Debian's are in libnode-dev) or pass --nodedir`);
  }
  const major = /#define NODE_MAJOR_VERSION (\d+)/.exec(readFileSync(header, 'utf8'))?.[1];
  if (major === undefined) throw new Error(`${header} names no NODE_MAJOR_VERSION`);
  return Number(major);
}

/**
 * Debian's libnode-dev leaves libuv's headers (uv.h) to libuv1-dev in <nodedir>/include, beside
 * include/node where node-gyp looks; searched after the cross compiler's own C library headers.
 */
function splitHeaders(nodedir) {
  const include = path.join(nodedir, 'include');
  if (existsSync(path.join(include, 'node', 'uv.h')) || !existsSync(path.join(include, 'uv.h'))) return {};
  const flags = `-idirafter ${include}`;
  return { CFLAGS: flags, CXXFLAGS: flags };
}

/**
 * Compiles the module from the copy in `sourceModules` into `work`, and returns the stripped
 * .node file's path. node-gyp and nan come from the build machine's node_modules (devDependencies
 * of the module's own install); no header or binary is downloaded.
 */
export function compileHciModule({ arch, nodedir, sourceModules, work }) {
  const target = ARCHES[arch];
  const compiler = `${target.triplet}-g++`;
  try {
    execFileSync('sh', ['-c', `command -v ${compiler}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${compiler} is missing: apt-get install g++-${target.triplet.replaceAll('_', '-')}`);
  }
  const module = path.join(work, 'bluetooth-hci-socket');
  rmSync(module, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const source = path.join(sourceModules, '@abandonware', 'bluetooth-hci-socket');
  cpSync(source, module, { recursive: true, filter: (file) => !file.startsWith(path.join(source, 'build')) });
  const env = {
    ...process.env,
    CC: `${target.triplet}-gcc`,
    CXX: compiler,
    LINK: compiler,
    AR: `${target.triplet}-ar`,
    // binding.gyp runs `node -e "require('nan')"` in the module's folder.
    NODE_PATH: sourceModules,
    // node-gyp lets npm's setting (from an .npmrc, through `npm run`) outrank --nodedir.
    npm_config_nodedir: nodedir,
    ...splitHeaders(nodedir),
  };
  const gyp = path.join(sourceModules, 'node-gyp', 'bin', 'node-gyp.js');
  execFileSync(
    process.execPath,
    [gyp, 'rebuild', `--arch=${target.gypArch}`, `--nodedir=${nodedir}`, '--module_name=bluetooth_hci_socket', '--module_path=lib/binding'],
    { cwd: module, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const built = path.join(module, 'build', 'Release', 'bluetooth_hci_socket.node');
  execFileSync(`${target.triplet}-strip`, ['--strip-unneeded', built]);
  const kind = execFileSync('file', ['-b', built], { encoding: 'utf8' });
  if (!kind.includes(target.elf)) throw new Error(`the module built for ${arch} is not an ${target.elf} ELF: ${kind.trim()}`);
  return built;
}

/** The C library versions the module needs, as dpkg-shlibdeps would write them: e.g. `libc6 (>= 2.32)`. */
export function nativeDepends(arch, file) {
  const symbols = execFileSync(`${ARCHES[arch].triplet}-objdump`, ['-T', file], { encoding: 'utf8' });
  const glibc = [...symbols.matchAll(/GLIBC_(\d+)\.(\d+)/g)].map((match) => [Number(match[1]), Number(match[2])]);
  const [major, minor] = glibc.sort(([a, b], [c, d]) => c - a || d - b)[0] ?? [2, 17];
  return `libc6 (>= ${major}.${minor}), libstdc++6`;
}
