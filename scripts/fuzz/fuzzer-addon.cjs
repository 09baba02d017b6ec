// Preloaded (`node -r`) before Jazzer.js. Its fuzzer addon is prebuilt against glibc 2.38 and
// GCC 13's libstdc++, and asks for three symbols that older ones lack (__isoc23_strtol,
// __isoc23_strtoul, std::ios_base_library_init): on Debian 12 (glibc 2.36) it does not load at
// all. Where the glibc is older, this loads a copy of the addon whose need of GLIBC_2.38 and
// GLIBCXX_3.4.32 is marked weak, with a small shim that supplies the three (glibc-shim.c), built
// once into a cache directory. With glibc 2.38 or later it does nothing.
'use strict';
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { constants, tmpdir } = require('node:os');
const { dirname, join } = require('node:path');

const NEEDED_GLIBC = [2, 38];
const SHT_GNU_VERNEED = 0x6ffffffe;
const VER_FLG_WEAK = 0x2;

function glibcOlderThanNeeded() {
  const version = process.report?.getReport().header.glibcVersionRuntime;
  if (typeof version !== 'string') return false;
  const [major, minor] = version.split('.').map(Number);
  return major < NEEDED_GLIBC[0] || (major === NEEDED_GLIBC[0] && minor < NEEDED_GLIBC[1]);
}

/** The ELF file with each version it needs named `weak` made weak: the loader then only warns if it is missing. */
function weakenVersionNeed(elf, weak) {
  const sectionsAt = Number(elf.readBigUInt64LE(0x28));
  const entrySize = elf.readUInt16LE(0x3a);
  const count = elf.readUInt16LE(0x3c);
  const section = (index) => {
    const at = sectionsAt + index * entrySize;
    return { type: elf.readUInt32LE(at + 4), offset: Number(elf.readBigUInt64LE(at + 0x18)), link: elf.readUInt32LE(at + 0x28) };
  };
  let changed = 0;
  for (let index = 0; index < count; index++) {
    const needs = section(index);
    if (needs.type !== SHT_GNU_VERNEED) continue;
    const strings = section(needs.link).offset;
    const nameAt = (offset) => elf.toString('latin1', strings + offset, elf.indexOf(0, strings + offset));
    let need = needs.offset;
    for (;;) {
      let aux = need + elf.readUInt32LE(need + 8);
      for (let n = elf.readUInt16LE(need + 2); n > 0; n--) {
        if (nameAt(elf.readUInt32LE(aux + 8)) === weak) {
          elf.writeUInt16LE(elf.readUInt16LE(aux + 4) | VER_FLG_WEAK, aux + 4);
          changed++;
        }
        const next = elf.readUInt32LE(aux + 12);
        if (next === 0) break;
        aux += next;
      }
      const next = elf.readUInt32LE(need + 12);
      if (next === 0) break;
      need += next;
    }
  }
  return changed;
}

function prepare(addon) {
  const original = readFileSync(addon);
  const digest = createHash('sha256').update(original).update(readFileSync(join(__dirname, 'glibc-shim.c'))).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `panic-pair-fuzzer-${digest}`);
  const patched = join(dir, 'fuzzer.node');
  const shim = join(dir, 'glibc-shim.node');
  if (!existsSync(patched) || !existsSync(shim)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', `${shim}.${process.pid}.tmp`, join(__dirname, 'glibc-shim.c')], { stdio: 'inherit' });
    renameSync(`${shim}.${process.pid}.tmp`, shim);
    const copy = Buffer.from(original);
    for (const version of ['GLIBC_2.38', 'GLIBCXX_3.4.32']) weakenVersionNeed(copy, version);
    writeFileSync(`${patched}.${process.pid}.tmp`, copy);
    renameSync(`${patched}.${process.pid}.tmp`, patched);
  }
  return { patched, shim };
}

if (glibcOlderThanNeeded()) {
  const fuzzerDir = dirname(require.resolve('@jazzer.js/fuzzer/package.json', { paths: [join(__dirname, '..', '..')] }));
  const addon = join(fuzzerDir, 'prebuilds', `fuzzer-${process.platform}-${process.arch}.node`);
  const { patched, shim } = prepare(addon);
  process.dlopen({ exports: {} }, shim, constants.dlopen.RTLD_NOW | constants.dlopen.RTLD_GLOBAL);
  const load = Module._extensions['.node'];
  Module._extensions['.node'] = function loadNode(module, filename) {
    return load.call(this, module, filename === addon ? patched : filename);
  };
}
