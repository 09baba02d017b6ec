import { describe, expect, it } from 'vitest';
import { SupervisedButton, type ButtonSettings } from '../../src/supervision/button.js';
import { SourceClocks } from '../../src/supervision/source-clocks.js';

const MINUTE = 60_000;
const settings: ButtonSettings = { ceilingMs: 10 * MINUTE, triggerOnly: false, off: false };

function world(up: Record<string, boolean> = {}): { clocks: SourceClocks; up: Record<string, boolean> } {
  return { clocks: new SourceClocks((source) => up[source] ?? true), up };
}

function heard(button: SupervisedButton, clocks: SourceClocks, source: string, at: number): void {
  button.sources.set(source, { heardAt: at, workedAt: clocks.heardFrom(source, at), creditMs: 0 });
}

describe('a supervised button', () => {
  it('starts unknown, not trigger based, its deadline the ceiling until something else sets it', () => {
    const button = new SupervisedButton('B1', settings, 0);
    expect(button.supervision).toBe('unknown');
    expect(button.triggerBased).toBe(false);
    expect(button.deadline()).toEqual({ ms: 10 * MINUTE, learned: false });
    button.savedDeadlineMs = 5 * MINUTE;
    expect(button.deadline()).toEqual({ ms: 5 * MINUTE, learned: true });
    // Learned in this run: twice the longest gap and a minute, in place of the saved one.
    for (const at of [0, 1, 2, 3, 4]) button.learner.report(at * MINUTE);
    expect(button.deadline()).toEqual({ ms: 3 * MINUTE, learned: true });
    button.settings = { ...settings, profileSeconds: 120 };
    expect(button.deadline()).toEqual({ ms: 2 * MINUTE, learned: false });
  });

  it('expects a source once: naming it again keeps what it heard', () => {
    const { clocks } = world();
    const button = new SupervisedButton('B1', settings, 0);
    button.expect('ble', clocks, 0, 5_000);
    expect(button.sources.get('ble')).toEqual({ heardAt: undefined, workedAt: 0, creditMs: 5_000 });
    heard(button, clocks, 'ble', 1_000);
    button.expect('ble', clocks, 2_000);
    expect(button.sources.get('ble')?.heardAt).toBe(1_000);
  });

  it('is unsupervised when supervision is off or it sends only when pressed', () => {
    const { clocks } = world();
    expect(new SupervisedButton('B1', { ...settings, off: true }, 0).decide(clocks, 0)).toBe('unsupervised');
    expect(new SupervisedButton('B1', { ...settings, triggerOnly: true }, 0).decide(clocks, 0)).toBe('unsupervised');
  });

  it('is missing after a whole deadline of a working source’s silence, counted from when it was expected', () => {
    const { clocks } = world();
    clocks.up('ble', 0);
    const button = new SupervisedButton('B1', settings, 0);
    // Expected at 4 min of the source's working time: silence counts from there.
    button.expect('ble', clocks, 4 * MINUTE);
    expect(button.decide(clocks, 14 * MINUTE - 1)).toBe('unknown');
    expect(button.decide(clocks, 14 * MINUTE)).toBe('missing');
  });

  it('counts silence carried over from before a restart', () => {
    const { clocks } = world();
    const button = new SupervisedButton('B1', settings, 0);
    button.expect('ble', clocks, 0, 6 * MINUTE);
    expect(button.decide(clocks, 4 * MINUTE - 1)).toBe('unknown');
    expect(button.decide(clocks, 4 * MINUTE)).toBe('missing');
  });

  it('is online within its deadline of a report, and unknown while no source that can hear it works', () => {
    const { clocks, up } = world();
    const button = new SupervisedButton('B1', settings, 0);
    button.expect('ble', clocks, 0);
    heard(button, clocks, 'ble', MINUTE);
    expect(button.decide(clocks, 11 * MINUTE - 1)).toBe('online');
    up.ble = false;
    clocks.sample(11 * MINUTE - 1);
    expect(button.decide(clocks, 30 * MINUTE)).toBe('unknown');
  });

  it('lets go of a working source deaf to it for a deadline while another hears it', () => {
    const { clocks } = world();
    const button = new SupervisedButton('B1', settings, 0);
    for (const source of ['ble', 'gateway', 'near', 'edge']) button.expect(source, clocks, 0);
    heard(button, clocks, 'ble', 10 * MINUTE);
    heard(button, clocks, 'near', MINUTE);
    heard(button, clocks, 'edge', 0);
    // gateway: never heard, working for exactly the deadline; edge: heard exactly a deadline before.
    expect(button.decide(clocks, 10 * MINUTE)).toBe('online');
    expect([...button.sources.keys()]).toEqual(['ble', 'near']);
  });

  it('keeps a deaf source that is down, and one silent for less than a deadline', () => {
    const { clocks } = world({ down: false });
    const button = new SupervisedButton('B1', settings, 0);
    for (const source of ['ble', 'down', 'late', 'deaf']) button.expect(source, clocks, 0);
    button.sources.get('late')!.workedAt = 1;
    heard(button, clocks, 'ble', 10 * MINUTE);
    expect(button.decide(clocks, 10 * MINUTE)).toBe('online');
    expect([...button.sources.keys()]).toEqual(['ble', 'down', 'late']);
  });

  it('lets go of a source deaf to it for a deadline counting the silence carried over a restart', () => {
    const { clocks } = world();
    const button = new SupervisedButton('B1', settings, 0);
    button.expect('ble', clocks, 0);
    button.expect('carried', clocks, 0, 10 * MINUTE - 1);
    heard(button, clocks, 'ble', 0);
    expect(button.decide(clocks, 1)).toBe('online');
    expect([...button.sources.keys()]).toEqual(['ble']);
  });

  it('never lets go of a source that is down, nor of one that heard it within its deadline, whatever their working clocks say', () => {
    const { clocks } = world({ down: false });
    const button = new SupervisedButton('B1', settings, 0);
    button.expect('ble', clocks, 0);
    button.expect('down', clocks, 0, 10 * MINUTE);
    heard(button, clocks, 'ble', 10 * MINUTE);
    // Heard a minute ago, its working clock still where it was when first expected.
    button.expect('late', clocks, 0);
    button.sources.get('late')!.heardAt = 9 * MINUTE;
    // One source deaf for the deadline, let go: the others are judged beside it.
    button.expect('deaf', clocks, 0);
    expect(button.decide(clocks, 10 * MINUTE)).toBe('online');
    expect([...button.sources.keys()]).toEqual(['ble', 'down', 'late']);
  });

  it('keeps every source while none has been deaf for a deadline', () => {
    const { clocks } = world();
    const button = new SupervisedButton('B1', settings, 0);
    for (const source of ['ble', 'gateway']) button.expect(source, clocks, 0);
    heard(button, clocks, 'ble', MINUTE);
    expect(button.decide(clocks, 5 * MINUTE)).toBe('online');
    expect([...button.sources.keys()]).toEqual(['ble', 'gateway']);
  });
});
