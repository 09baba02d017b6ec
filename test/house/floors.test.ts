import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sources, SRC } from './src-imports.js';

// The house's floors (docs/engineer/architecture.md). Each folder of src/ is a room; the
// files directly in src/ are the ground floor, words every room shares. A module may import from
// its own room and from rooms on floors below its own: never from a floor above, and never from
// another room on its own floor, by a static import, a type-only one (it ties the rooms as much)
// or a lazy `import()`. Rooms share a floor when neither needs the other: the sources (discovery/)
// and the engine (pairing/) know nothing of each other, and the daemon carries sightings between.
// A new folder must be given its floor here before its modules can import anything.

/** The files directly in src/. */
const GROUND = '.';

/** The rooms, lowest floor first. */
const FLOORS: readonly (readonly string[])[] = [
  [GROUND],
  ['config', 'log', 'http'],
  ['store', 'api'],
  ['supervision', 'update'],
  ['status'],
  ['mqtt'],
  ['discovery', 'pairing'],
  ['authentication', 'control'],
  ['check', 'fleet', 'demo', 'simulator'],
  ['web', 'provision'],
  ['daemon'],
  ['cli'],
];

const floorOf = new Map(FLOORS.flatMap((rooms, floor) => rooms.map((room) => [room, floor] as const)));

/** The room of a module of src/: its first folder, or the ground floor. */
function roomOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length === 1 ? GROUND : (parts[0] as string);
}

/** The imports of `files` that run from a room to one on its own floor or above, as `from -> to`. */
function upwardImports(files: readonly string[], floors: ReadonlyMap<string, number> = floorOf): string[] {
  return files.flatMap((file) => {
    const room = roomOf(file);
    return importsOf(file, { lazy: true })
      .filter((target) => target.startsWith(SRC + path.sep))
      .filter((target) => {
        const to = roomOf(target);
        return to !== room && (floors.get(to) ?? Infinity) >= (floors.get(room) ?? Infinity);
      })
      .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
  });
}

describe('the floors of src/', () => {
  it('give every room of src/ one floor', () => {
    const rooms = [GROUND, ...readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)];
    expect([...FLOORS.flat()].sort()).toEqual(rooms.sort());
  });

  it('no module imports from a room on its own floor or above', () => {
    expect(upwardImports(sources())).toEqual([]);
  });

  it('would notice an upward import: static, type-only or lazy', () => {
    const file = (name: string): string => path.join(SRC, name);
    const raised = (room: string, to: string): Map<string, number> => new Map([...floorOf, [room, floorOf.get(to) as number]]);
    expect(upwardImports([file('pairing/engine.ts')], raised('api', 'pairing'))).toContain('pairing/engine.ts -> api/request-slots.ts');
    expect(upwardImports([file('status/status-report.ts')], raised('supervision', 'status'))).toContain('status/status-report.ts -> supervision/types.ts');
    expect(upwardImports([file('cli/commands/check.ts')], raised('check', 'cli'))).toContain('cli/commands/check.ts -> check/index.ts');
  });
});
