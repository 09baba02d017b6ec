import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { Listeners } from '../../src/pairing/listeners.js';

describe('Listeners', () => {
  it('tells them in the order added, one added `first` before all the others', () => {
    const told: string[] = [];
    const listeners = new Listeners<string>(silentLogger());
    listeners.add((value) => told.push(`supervision ${value}`));
    listeners.add((value) => told.push(`log ${value}`));
    listeners.add((value) => told.push(`state ${value}`), true);
    listeners.add((value) => told.push(`page ${value}`));
    listeners.notify('linked');
    expect(told).toEqual(['state linked', 'supervision linked', 'log linked', 'page linked']);
  });

  it('a listener that throws stops none of the others', () => {
    const told: string[] = [];
    const listeners = new Listeners<string>(silentLogger());
    listeners.add(() => {
      throw new Error('an output failed');
    }, true);
    listeners.add((value) => told.push(value));
    listeners.notify('linked');
    expect(told).toEqual(['linked']);
  });
});
