// The node_modules the package carries beside its bundle: what esbuild cannot fold into it. noble
// is loaded by path and has its HCI layer swapped (src/discovery/noble-loader.ts), the HCI module
// (installed with noble) is native, and pino starts its pretty-printer as a worker thread by file
// name. Each is copied with what it requires at run time, and nothing a hub does not run: build
// tools (node-addon-api, napi-thread-safe-callback, and patch-package, which the HCI module's
// release scripts use), its UART and USB transports (serialport, async, usb: only with
// BLUETOOTH_HCI_SOCKET_UART_PORT or _FORCE_USB, for controllers without a kernel driver), its
// prebuilt native parts (the package compiles its own), types, docs and tests.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// pino-pretty is a development dependency: a hub logs JSON (src/log/logger.ts).
export const EXTERNAL = ['@abandonware/noble', '@abandonware/bluetooth-hci-socket', 'pino'];

/** Dependencies a package declares that are not needed to run it on a hub. */
const NOT_AT_RUN_TIME = new Set(['node-addon-api', 'napi-thread-safe-callback', 'patch-package', 'serialport', 'async', 'usb']);

/** What the package copies with their dependencies; noble brings the HCI module. */
const COPIED = ['@abandonware/noble', 'pino'];

/** Files and folders no package needs at run time. */
const PRUNED = /(^|\/)(\.[^/]*|test|tests|__tests__|fixtures?|docs?|examples?|benchmarks?|prebuilds|package-lock\.json|tsconfig\.json|eslint\.config\.[cm]?js|(test|bench|benchmark|example)[^/]*\.js|index\.html|favicon\.ico|CNAME|demo\.png|[^/]*\.sh|[^/]*\.(md|markdown|ts|map|gyp|gypi|cc|cpp|h|yml|yaml))$/i;
// Each package's license text goes into the copyright file (metadata.mjs), not beside its code.
const KEPT = /(^|\/)package\.json$/i;
/** A package's license text, by its usual names. */
export const LICENSE_FILE = /(^|\/)(licen[cs]e|copying)(\.(md|txt|markdown))?$/i;
/** Per package: folders of sources and build products; the HCI module's own is compiled afresh. */
const PRUNED_IN = {
  '@abandonware/noble': /^(lib\/(mac|win|webbluetooth|websocket|distributed)|build|src|assets|test[^/]*\.js|ws-slave\.js|with-[^/]*\.js)$/,
  '@abandonware/bluetooth-hci-socket': /^(build|src|include|patches|lib\/(uart|usb)[^/]*)$/,
  // The logger's command line; the daemon uses it as a library.
  pino: /^(bin\.js|browser\.js)$/,
  // Its commands, which build at install; the HCI module uses it as a library, to find its build.
  'node-gyp-build': /^(bin|build-test|optional)\.js$/,
};

/** Where `name` resolves from the package folder `from`, as Node's resolution looks upwards. */
function locate(name, from, root) {
  for (let dir = from; dir.startsWith(root); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root) break;
  }
  return undefined;
}

/** Copies `names` and their run-time dependencies from the project folder `root`'s node_modules into `target`'s, keeping each one's place. */
export function copyRuntimeModules(root, target, names = COPIED) {
  const seen = new Set();
  const queue = names.map((name) => ({ name, from: root, optional: false }));
  while (queue.length > 0) {
    const { name, from, optional } = queue.shift();
    const dir = locate(name, from, root);
    if (dir === undefined) {
      if (optional) continue;
      throw new Error(`${name} is not installed under ${root}: run npm ci first`);
    }
    if (seen.has(dir)) continue;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const destination = path.join(target, path.relative(root, dir));
    mkdirSync(path.dirname(destination), { recursive: true });
    cpSync(dir, destination, {
      recursive: true,
      filter: (file) => {
        const relative = path.relative(dir, file);
        if (relative === '' || KEPT.test(relative)) return true;
        if (LICENSE_FILE.test(relative)) return false;
        if (PRUNED_IN[name]?.test(relative)) return false;
        return !PRUNED.test(relative) && !relative.startsWith('node_modules');
      },
    });
    for (const [dependencies, optionalOnes] of [
      [manifest.dependencies, false],
      [manifest.optionalDependencies, true],
    ]) {
      for (const dependency of Object.keys(dependencies ?? {})) {
        if (!NOT_AT_RUN_TIME.has(dependency) && !names.includes(dependency)) queue.push({ name: dependency, from: dir, optional: optionalOnes });
      }
    }
    // Nested copies a package resolves first are reached through `locate` from its own folder.
  }
  return [...seen].map((dir) => path.relative(root, dir));
}

/** Bytes under `dir`, as `du --apparent-size` counts them. */
export function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(file);
    else if (entry.isFile()) total += statSync(file).size;
  }
  return total;
}
