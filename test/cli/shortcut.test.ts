import { describe, expect, it } from 'vitest';
import { parseShortcut } from '../../src/cli/shortcut.js';

describe('parseShortcut', () => {
  it.each([
    [['status'], { command: 'status', options: {} }],
    [['status', '--json'], { command: 'status', options: { json: true } }],
    [['devices', '--json', '--runtime-dir', '/run/pp'], { command: 'devices', options: { json: true, runtimeDir: '/run/pp' } }],
    [['status', '--runtime-dir=/run/pp', '--config', 'c.json'], { command: 'status', options: { runtimeDir: '/run/pp', config: 'c.json' } }],
    [['status', '--config', 'a.json', '--config', 'b.json'], { command: 'status', options: { config: 'b.json' } }],
  ])('takes %j', (args, expected) => {
    expect(parseShortcut(args)).toEqual(expected);
  });

  it.each([
    [[]],
    [['run']],
    [['pair', 'X1']],
    [['status', '--help']],
    [['status', '-h']],
    [['status', '--verbose']],
    [['status', 'extra']],
    [['status', '--runtime-dir']],
    [['status', '--runtime-dir=']],
    [['status', '--runtime-dir', '--json']],
    [['status', '--json=yes']],
    [['--json', 'status']],
  ])('leaves %j to commander', (args) => {
    expect(parseShortcut(args)).toBeUndefined();
  });
});
