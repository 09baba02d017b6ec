#!/usr/bin/env node
// `npm run deb -- --arch amd64|arm64|armhf [--nodedir DIR] [--version V]` writes
// build/deb/panic-pair_<version>_<arch>.deb: the daemon bundled by esbuild into a few files, the
// modules that cannot be bundled (noble, the HCI module with its native part compiled for <arch>,
// pino), the unit, sysusers.d and tmpfiles.d entries, settings as conffiles and debhelper-style
// maintainer scripts.
// Nothing is compiled, downloaded or run through npm on the hub. See docs/operator/install.md.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ARCHES, compileHciModule, HCI_SOCKET, headersVersion, NAPI_VERSION, nativeDepends } from './hci-module.mjs';
import { bytesUnder, copyRuntimeModules, EXTERNAL } from './runtime-modules.mjs';
import { manPage } from './man-page.mjs';
import { controlFile, copyrightFile, changelogFile, manDate, unitFile } from './metadata.mjs';

// A missing tool or a failed step is said in one line, not as a stack trace.
process.on('uncaughtException', (error) => {
  process.stderr.write(`npm run deb: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FILES = path.join(import.meta.dirname, 'files');
const LIB = 'usr/lib/panic-pair';

const { values } = parseArgs({
  options: { arch: { type: 'string' }, nodedir: { type: 'string' }, version: { type: 'string' }, out: { type: 'string' } },
});
const arch = values.arch;
if (!(arch in ARCHES)) {
  process.stderr.write(`usage: npm run deb -- --arch ${Object.keys(ARCHES).join('|')} [--nodedir DIR] [--version V]\n`);
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const version = values.version ?? manifest.version;
// Node-API's headers, from this Node by default: the module loads in any Node from 20.17 on.
const nodedir = path.resolve(values.nodedir ?? path.join(path.dirname(process.execPath), '..'));
const headers = headersVersion(nodedir);
const outDir = path.resolve(values.out ?? path.join(ROOT, 'build', 'deb'));
const work = path.join(outDir, `work-${arch}`);
const stage = path.join(work, 'root');
const started = performance.now();

rmSync(work, { recursive: true, force: true });
const lib = path.join(stage, LIB);
mkdirSync(lib, { recursive: true });

// 1. The program: src/cli/main.ts and all it imports, in ESM chunks so that commands still load lazily.
const bundle = await build({
  entryPoints: { main: path.join(ROOT, 'src', 'cli', 'main.ts') },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.17',
  outdir: path.join(lib, 'dist'),
  chunkNames: 'chunk-[hash]',
  external: EXTERNAL,
  // Whitespace and syntax only: function names stay, so a stack trace in the journal reads.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  // Bundled CommonJS packages call require(); ESM has none of its own.
  banner: { js: "import{createRequire as __panicPairRequire}from'node:module';const require=__panicPairRequire(import.meta.url);" },
});
// The judge of an update (src/update/judge.ts), one file that needs nothing but node: the version
// being replaced copies it out of the package before the new files land (the prerm), so a release
// never judges itself. Beside it, the conffiles as shipped, from which the judge rebuilds this
// version as a package to go back to (src/update/repack.ts).
await build({
  entryPoints: [path.join(ROOT, 'src', 'update', 'judge.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.17',
  outfile: path.join(lib, 'update', 'judge.mjs'),
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
mkdirSync(path.join(lib, 'update', 'conffiles', 'etc', 'panic-pair'), { recursive: true });
copyFileSync(path.join(FILES, 'config.json'), path.join(lib, 'update', 'conffiles', 'etc', 'panic-pair', 'config.json'));
// The installer's page reads its files beside the chunk that serves it (src/web/assets.ts).
cpSync(path.join(ROOT, 'src', 'web', 'assets'), path.join(lib, 'dist', 'web', 'assets'), { recursive: true });
writeFileSync(path.join(lib, 'package.json'), `${JSON.stringify({ name: 'panic-pair', version, type: 'module', private: true }, null, 2)}\n`);
mkdirSync(path.join(lib, 'bin'));
const command = readFileSync(path.join(ROOT, 'bin', 'panic-pair.js'), 'utf8')
  .replaceAll('dist/cli/main.js', 'dist/main.js')
  // The node that Depends names, Debian's or NodeSource's, and never a /usr/local/bin/node left
  // from an older install, which comes first in systemd's PATH and sudo's.
  .replace(/^#!\/usr\/bin\/env node\n/, '#!/usr/bin/node\n');
if (!command.startsWith('#!/usr/bin/node\n') || !command.includes('dist/main.js')) {
  throw new Error('bin/panic-pair.js changed: adapt packaging/deb/build.mjs to it');
}
writeFileSync(path.join(lib, 'bin', 'panic-pair.js'), command, { mode: 0o755 });

// 2. What is not bundled, with the HCI module's native part compiled for the package's
// architecture from the installed module's sources, in place of its prebuilt ones.
const modules = path.join(ROOT, 'node_modules');
const copied = copyRuntimeModules(ROOT, lib);
const hciSocket = copied.find((dir) => dir.endsWith(`node_modules/${HCI_SOCKET}`));
if (hciSocket === undefined) throw new Error(`the HCI module (${HCI_SOCKET}, installed with @abandonware/noble) is not installed under ${ROOT}: run npm ci first`);
const native = path.join(work, 'native');
const module = compileHciModule({ arch, nodedir, source: path.join(ROOT, hciSocket), sourceModules: modules, work: native });
const release = path.join(lib, hciSocket, 'build', 'Release');
mkdirSync(release, { recursive: true });
copyFileSync(module, path.join(release, 'bluetooth_hci_socket.node'));
const libraries = nativeDepends(arch, module);

// 3. The system's side: command, unit, user, state directory, settings, docs.
const place = (relative, text, mode = 0o644) => {
  const file = path.join(stage, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, { mode });
  chmodSync(file, mode);
};
mkdirSync(path.join(stage, 'usr', 'bin'), { recursive: true });
symlinkSync(`../lib/panic-pair/bin/panic-pair.js`, path.join(stage, 'usr', 'bin', 'panic-pair'));
place('usr/lib/systemd/system/panic-pair.service', unitFile(readFileSync(path.join(ROOT, 'systemd', 'panic-pair.service'), 'utf8')));
place('usr/lib/sysusers.d/panic-pair.conf', readFileSync(path.join(FILES, 'sysusers.conf')));
place('usr/lib/tmpfiles.d/panic-pair.conf', readFileSync(path.join(FILES, 'tmpfiles.conf')));
place('etc/panic-pair/config.json', readFileSync(path.join(FILES, 'config.json')));
const doc = 'usr/share/doc/panic-pair';
place(`${doc}/copyright`, copyrightFile(bundle.metafile, [...copied, 'node_modules/node-addon-api'], ROOT));
place(`${doc}/changelog.gz`, gzipSync(changelogFile(version), { level: 9 }));
// How to install and configure a hub: docs/operator/install.md (the unit's Documentation=).
place(`${doc}/install.md.gz`, gzipSync(readFileSync(path.join(ROOT, 'docs', 'operator', 'install.md')), { level: 9 }));
place(`${doc}/README.md.gz`, gzipSync(readFileSync(path.join(ROOT, 'README.md')), { level: 9 }));
// Every setting, with its variable and config.json key, and an example file to start from.
place(`${doc}/settings.md.gz`, gzipSync(readFileSync(path.join(ROOT, 'docs', 'reference', 'configuration.md')), { level: 9 }));
place(`${doc}/examples/config.example.json`, readFileSync(path.join(ROOT, 'config', 'config.example.json')));
// `man panic-pair`, from the packaged command's own --help (man-page.mjs).
const page = manPage({ command: path.join(lib, 'bin', 'panic-pair.js'), version, date: manDate() });
place('usr/share/man/man1/panic-pair.1.gz', gzipSync(page, { level: 9 }));
execFileSync('chmod', ['-R', 'u=rwX,go=rX', stage]);
// npm packages ship stray executable bits (a LICENSE, a library file); only the command runs.
execFileSync('find', [path.join(lib, 'node_modules'), '-type', 'f', '-exec', 'chmod', '0644', '{}', '+']);
execFileSync('chmod', ['0755', path.join(lib, 'bin', 'panic-pair.js')]);

// 4. Control: the maintainer scripts, conffiles, md5sums, and the installed size.
const control = path.join(stage, 'DEBIAN');
mkdirSync(control);
const scripts = { postinst: 'postinst', prerm: 'prerm', postrm: 'postrm', ...(arch === 'armhf' ? { preinst: 'preinst-armhf' } : {}) };
for (const [script, file] of Object.entries(scripts)) {
  copyFileSync(path.join(FILES, file), path.join(control, script));
  chmodSync(path.join(control, script), 0o755);
}
writeFileSync(path.join(control, 'conffiles'), '/etc/panic-pair/config.json\n');
const sums = execFileSync('sh', ['-c', "find . -path ./DEBIAN -prune -o -type f -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 md5sum"], {
  cwd: stage,
  encoding: 'utf8',
});
writeFileSync(path.join(control, 'md5sums'), sums);
const installedBytes = bytesUnder(stage) - bytesUnder(control);
writeFileSync(path.join(control, 'control'), controlFile({ version, arch, libraries, installedKiB: Math.ceil(installedBytes / 1024) }));

const deb = path.join(outDir, `panic-pair_${version}_${arch}.deb`);
execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', stage, deb], { stdio: ['ignore', 'ignore', 'inherit'] });
const debBytes = statSync(deb).size;
rmSync(work, { recursive: true, force: true });
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
process.stdout.write(
  `${deb}\n  ${arch}, Node-API ${NAPI_VERSION} (headers of Node ${headers}); package ${mb(debBytes)}, installed ${mb(installedBytes)}; ` +
    `${copied.length} modules beside the bundle; built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
