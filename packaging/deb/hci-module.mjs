// The one native module: the HCI socket, compiled for the package's architecture on the build
// machine with Debian's cross compilers (g++-aarch64-linux-gnu, g++-arm-linux-gnueabihf). Nothing
// is compiled on the hub. It is built from the sources of the HCI module that `npm ci` installed
// (@stoprocent/bluetooth-hci-socket, the lock's version and digest, in the place noble requires
// @abandonware/bluetooth-hci-socket), with panic-pair's descriptor fix (scripts/hci-module.mjs),
// which use Node-API: one build loads in every Node from 20.17 on. A source install compiles the
// same fixed sources (scripts/hci-module.mjs, run by `npm ci` and by systemd/install.sh); the
// module's prebuilt binaries are refused (src/discovery/kernel-hci-socket.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fixHciSources } from '../../scripts/hci-module.mjs';

/** Where npm installs the HCI module: the name noble requires, replaced by package.json's `overrides`. */
export const HCI_SOCKET = '@abandonware/bluetooth-hci-socket';

/** Debian's architecture names, the GNU triplet of its compilers and node-gyp's --arch. */
export const ARCHES = {
  amd64: { triplet: 'x86_64-linux-gnu', gypArch: 'x64', elf: 'x86-64' },
  arm64: { triplet: 'aarch64-linux-gnu', gypArch: 'arm64', elf: 'ARM aarch64' },
  armhf: { triplet: 'arm-linux-gnueabihf', gypArch: 'arm', elf: 'ARM, EABI5' },
};

/**
 * Node-API's headers are those of any Node that has them; the module is compiled for
 * `NAPI_VERSION`, which every Node from 20.17 on provides (Node 20 has 9).
 */
export const NAPI_VERSION = 8;

/** The Node version whose headers are under `nodedir` (its include/node), which must have Node-API's. */
export function headersVersion(nodedir) {
  const header = path.join(nodedir, 'include', 'node', 'node_version.h');
  if (!existsSync(header) || !existsSync(path.join(nodedir, 'include', 'node', 'node_api.h'))) {
    throw new Error(`no Node headers at ${path.dirname(header)}: install them (NodeSource's nodejs has them, Debian's are in libnode-dev) or pass --nodedir`);
  }
  const text = readFileSync(header, 'utf8');
  const version = ['MAJOR', 'MINOR', 'PATCH'].map((part) => new RegExp(`#define NODE_${part}_VERSION (\\d+)`).exec(text)?.[1]);
  if (version.includes(undefined)) throw new Error(`${header} names no Node version`);
  return version.join('.');
}

/**
 * Debian's libnode-dev leaves libuv's headers (uv.h) to libuv1-dev in <nodedir>/include, beside
 * include/node where node-gyp looks; searched after the cross compiler's own C library headers.
 */
function splitHeaders(nodedir) {
  const include = path.join(nodedir, 'include');
  if (existsSync(path.join(include, 'node', 'uv.h')) || !existsSync(path.join(include, 'uv.h'))) return '';
  return ` -idirafter ${include}`;
}

/**
 * Compiles the module from its sources in `source` (the installed module's folder) into `work`,
 * and returns the stripped .node file's path. node-gyp (a development dependency) and
 * node-addon-api (the module's own) come from the build machine's node_modules; no header or
 * binary is downloaded.
 */
export function compileHciModule({ arch, nodedir, source, sourceModules, work }) {
  const target = ARCHES[arch];
  const compiler = `${target.triplet}-g++`;
  try {
    execFileSync('sh', ['-c', `command -v ${compiler}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${compiler} is missing: apt-get install g++-${target.triplet.replaceAll('_', '-')}`);
  }
  const module = path.join(work, 'bluetooth-hci-socket');
  rmSync(module, { recursive: true, force: true });
  mkdirSync(module, { recursive: true });
  // The sources and nothing else: not its prebuilt binaries, not a build of the machine's own.
  for (const part of ['binding.gyp', 'package.json', 'src', 'include']) cpSync(path.join(source, part), path.join(module, part), { recursive: true });
  // With panic-pair's fix: each socket's descriptor closed once (scripts/hci-module.mjs says why).
  fixHciSources(module);
  // Debian's hardening for a library that reads from a kernel socket: fortified libc calls, and
  // its relocations read-only once loaded.
  const flags = `-DNAPI_VERSION=${NAPI_VERSION} -D_FORTIFY_SOURCE=2 -fstack-protector-strong${splitHeaders(nodedir)}`;
  const env = {
    ...process.env,
    CC: `${target.triplet}-gcc`,
    CXX: compiler,
    LINK: compiler,
    AR: `${target.triplet}-ar`,
    CFLAGS: flags,
    CXXFLAGS: flags,
    LDFLAGS: '-Wl,-z,relro -Wl,-z,now',
    // binding.gyp runs `node -p "require('node-addon-api').include"` in the module's folder.
    NODE_PATH: sourceModules,
    // node-gyp lets npm's setting (from an .npmrc, through `npm run`) outrank --nodedir.
    npm_config_nodedir: nodedir,
  };
  const gyp = path.join(sourceModules, 'node-gyp', 'bin', 'node-gyp.js');
  execFileSync(process.execPath, [gyp, 'rebuild', `--arch=${target.gypArch}`, `--nodedir=${nodedir}`], {
    cwd: module,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const built = path.join(module, 'build', 'Release', 'bluetooth_hci_socket.node');
  execFileSync(`${target.triplet}-strip`, ['--strip-unneeded', '--remove-section=.comment', built]);
  const kind = execFileSync('file', ['-b', built], { encoding: 'utf8' });
  if (!kind.includes(target.elf)) throw new Error(`the module built for ${arch} is not an ${target.elf} ELF: ${kind.trim()}`);
  const tied = nodeAbiSymbols(arch, built);
  if (tied.length > 0) throw new Error(`the module built for ${arch} uses V8's or Node's C++ API, not only Node-API: ${tied.slice(0, 3).join(', ')}`);
  return built;
}

/** Symbols the module takes from V8 or Node's C++ API, which tie it to one Node major. */
function nodeAbiSymbols(arch, file) {
  const symbols = execFileSync(`${ARCHES[arch].triplet}-objdump`, ['-T', file], { encoding: 'utf8' });
  return [...symbols.matchAll(/\*UND\*\s+\S+\s+(?:\S+\s+)?(_ZN(?:2v8|4node)\S*)/g)].map((match) => match[1]);
}

/** The C library versions the module needs, as dpkg-shlibdeps would write them: e.g. `libc6 (>= 2.32)`. */
export function nativeDepends(arch, file) {
  const symbols = execFileSync(`${ARCHES[arch].triplet}-objdump`, ['-T', file], { encoding: 'utf8' });
  const glibc = [...symbols.matchAll(/GLIBC_(\d+)\.(\d+)/g)].map((match) => [Number(match[1]), Number(match[2])]);
  const [major, minor] = glibc.sort(([a, b], [c, d]) => c - a || d - b)[0] ?? [2, 17];
  return `libc6 (>= ${major}.${minor}), libstdc++6`;
}
