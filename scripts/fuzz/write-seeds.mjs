// Writes a Jazzer target's seeds (its exported seeds()) into a corpus directory, then exits: a
// target may hold a server open.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [name, dir] = process.argv.slice(2);
const target = await import(resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'test', 'fuzz', 'targets', `${name}.mjs`));
for (const seed of await target.seeds()) writeFileSync(join(dir, `seed-${createHash('sha1').update(seed).digest('hex')}`), seed);
process.exit(0);
