// The HCI module (@stoprocent/bluetooth-hci-socket 2.3.0, where noble requires
// @abandonware/bluetooth-hci-socket) closes each socket twice once its reading thread has run:
// the thread closes the descriptor when it stops, the object keeps the number, and its destructor
// (when the garbage collector takes the stopped socket) closes that number again. By then the
// number belongs to something else in the daemon: a control-socket client, the listening control
// socket, the store's file being written, or a descriptor libuv watches, which aborts the process.
// The kernel tests (test/ble-kernel/) found it. So panic-pair never uses the module's prebuilt binaries:
// the sources npm installed are fixed here and compiled, by `npm ci` (the `prepare` script), by
// systemd/install.sh and by the package build, and the loader refuses a build without the fix
// (src/discovery/kernel-hci-socket.ts, MODULE_FIXED).
//
//   node scripts/hci-module.mjs [--fix-only | --check] [--strict] [FOLDER]
//
// FOLDER is the install folder (default: this checkout). --fix-only fixes the sources without
// compiling; --check only says whether the fixed build loads (exit 0) or why not (the reason on
// stderr, exit 1); --strict exits 1 when Bluetooth ends up off (otherwise it says so loudly, exit 0:
// `npm ci` on a machine without a compiler still installs everything else).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name noble requires the module by; npm's name for its folder. */
const HCI_SOCKET = '@abandonware/bluetooth-hci-socket';
const NOBLE_HCI = '@abandonware/noble/lib/hci-socket/hci.js';
/** What the fixed build says of itself: a static property of its socket class. */
export const MODULE_FIXED = 'closesItsSocketOnce';

/**
 * Each edit: the text the module's sources hold, and what it becomes. The fix is that only the
 * code that joins the reading thread closes the socket, once, and forgets its number; a thread
 * that stopped by itself is joined too (std::thread aborts when a joinable one is replaced or
 * destroyed); and a packet queued for JavaScript is dropped once its socket object is destroyed.
 */
const EDITS = {
  'include/BluetoothHciSocket.h': [
    [
      '  std::thread pollingThread;      ///< Thread for polling the socket\n',
      '  std::thread pollingThread;      ///< Thread for polling the socket\n' +
        '  std::shared_ptr<std::atomic<bool>> _alive = std::make_shared<std::atomic<bool>>(true); ///< false once destroyed (panic-pair)\n',
    ],
  ],
  'src/BluetoothHciSocket.cpp': [
    [
      'BluetoothHciSocket::~BluetoothHciSocket() {\n  if (!stopFlag && pollingThread.joinable()) {',
      'BluetoothHciSocket::~BluetoothHciSocket() {\n  *this->_alive = false;\n  if (pollingThread.joinable()) {',
    ],
    [
      '            tsfn.BlockingCall([message, this](Napi::Env env, Napi::Function jsCallback) {\n',
      '            tsfn.BlockingCall([message, this, alive = this->_alive](Napi::Env env, Napi::Function jsCallback) {\n' +
        '                if (!*alive) return;  // panic-pair: the socket object is gone\n',
    ],
    ['    close(_socket);  // Close the socket when done\n    tsfn.Release();', '    // panic-pair: the socket is closed once, by whoever joins this thread\n    tsfn.Release();'],
    [
      'void BluetoothHciSocket::Start(const Napi::CallbackInfo& info) {\n  if (!stopFlag && pollingThread.joinable()) {',
      'void BluetoothHciSocket::Start(const Napi::CallbackInfo& info) {\n  if (pollingThread.joinable()) {',
    ],
    [
      '  if (!stopFlag && pollingThread.joinable()) {\n    stopFlag = true;\n    pollingThread.join();  // Wait for the polling thread to finishf\n  }\n}\n\nvoid BluetoothHciSocket::Write(',
      '  if (pollingThread.joinable()) {\n    stopFlag = true;\n    pollingThread.join();  // Wait for the polling thread to finishf\n' +
        '    if (this->_socket >= 0) { close(this->_socket); this->_socket = -1; }  // panic-pair: closed once, and forgotten\n  }\n}\n\nvoid BluetoothHciSocket::Write(',
    ],
    [
      '  exports.Set("BluetoothHciSocket", func);\n',
      `  func.Set("${MODULE_FIXED}", Napi::Boolean::New(env, true));  // panic-pair\n  exports.Set("BluetoothHciSocket", func);\n`,
    ],
  ],
};

/** Applies the fix to the module's sources in `dir`; does nothing where it is applied already. */
export function fixHciSources(dir) {
  for (const [file, edits] of Object.entries(EDITS)) {
    const where = path.join(dir, file);
    let text = readFileSync(where, 'utf8');
    for (const [from, to] of edits) {
      if (text.includes(to)) continue;
      if (!text.includes(from)) throw new Error(`${where} is not the source this fix was written for (${HCI_SOCKET} 2.3.0); adapt scripts/hci-module.mjs to it`);
      text = text.replace(from, to);
    }
    writeFileSync(where, text);
  }
}

/** The module's folder in the install folder `root`, as noble resolves it; undefined without noble. */
export function hciModuleDir(root) {
  const noble = path.join(root, 'node_modules', NOBLE_HCI);
  if (!existsSync(noble)) return undefined;
  return path.dirname(createRequire(noble).resolve(`${HCI_SOCKET}/package.json`));
}

/**
 * node-gyp downloads Node's headers unless told where they are: Node's own beside it (NodeSource's
 * nodejs, or Debian's with libnode-dev of the same major) are used when npm was not told otherwise.
 */
function localHeaders() {
  if (process.env.npm_config_nodedir) return {};
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  const header = path.join(prefix, 'include', 'node', 'node_version.h');
  if (!existsSync(header)) return {};
  const major = /#define NODE_MAJOR_VERSION (\d+)/.exec(readFileSync(header, 'utf8'))?.[1];
  return major === process.versions.node.split('.')[0] ? { npm_config_nodedir: prefix } : {};
}

/** Compiles the module in `root` from its (fixed) sources, through npm as its install script does. */
function compile(root) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm && existsSync(npm) ? [process.execPath, [npm]] : ['npm', []];
  execFileSync(command, [...args, 'rebuild', HCI_SOCKET, '--foreground-scripts'], {
    cwd: root,
    env: { ...process.env, ...localHeaders(), npm_config_build_from_source: 'true' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** Why the module in `root` is not usable, or undefined when the fixed build loads. */
export function hciModuleProblem(root) {
  const script = `const { createRequire } = require('node:module');
const Socket = createRequire(require.resolve(${JSON.stringify(NOBLE_HCI)}))(${JSON.stringify(HCI_SOCKET)});
if (Socket.${MODULE_FIXED} !== true) throw new Error('only the prebuilt module is there, which lacks the descriptor fix: the module was not compiled here');`;
  try {
    execFileSync(process.execPath, ['-e', script], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    return undefined;
  } catch (error) {
    const lines = String(error.stderr ?? error.message).split('\n');
    return lines.find((line) => /^[A-Za-z]*Error/.test(line)) ?? lines[0];
  }
}

function main(argv) {
  const fixOnly = argv.includes('--fix-only');
  const strict = argv.includes('--strict');
  const root = path.resolve(argv.find((arg) => !arg.startsWith('--')) ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (argv.includes('--check')) {
    const problem = hciModuleProblem(root);
    if (problem !== undefined) process.stderr.write(`${problem}\n`);
    process.exitCode = problem === undefined ? 0 : 1;
    return;
  }
  const off = (why, fix) => {
    process.stderr.write(`panic-pair: BLUETOOTH WILL BE OFF: ${why}\npanic-pair:   fix: ${fix}\npanic-pair:   pairing over MQTT works without it; \`panic-pair check\` says the same\n`);
    process.exitCode = strict ? 1 : 0;
  };
  const dir = hciModuleDir(root);
  if (dir === undefined) return off('npm did not install the optional Bluetooth module (@abandonware/noble)', 'npm ci in the install folder');
  fixHciSources(dir);
  if (fixOnly) return;
  try {
    compile(root);
  } catch (error) {
    const said = String(error.stderr ?? error.message).split('\n').filter((line) => /gyp ERR!|error|not found/i.test(line)).slice(-5);
    return off(`the HCI module could not be compiled:\n${said.map((line) => `panic-pair:     ${line}`).join('\n')}`, 'sudo apt-get install build-essential python3 (offline: also npm_config_nodedir=/usr, Node\'s headers), then npm run hci-module');
  }
  const problem = hciModuleProblem(root);
  if (problem !== undefined) return off(`the HCI module does not load: ${problem}`, 'npm run hci-module, and read what it says');
  process.stdout.write('panic-pair: the Bluetooth (HCI) module is compiled, with its descriptor fix\n');
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
