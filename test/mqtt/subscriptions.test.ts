import { describe, expect, it } from 'vitest';
import { PanicPairError } from '../../src/errors.js';
import { reconnectDelay } from '../../src/mqtt/reconnect-delay.js';
import { SubscriptionTable, topicMatches } from '../../src/mqtt/subscriptions.js';

describe('topicMatches', () => {
  it.each([
    ['a/b', 'a/b', true],
    ['a/b', 'a/bc', false],
    ['a/bc', 'a/b', false],
    ['a/+', 'a/b', true],
    ['a/+', 'a/', true],
    ['a/+', 'a', false],
    ['a/+', 'a/b/c', false],
    ['home/+/BTtoMQTT/+', 'home/gw1/BTtoMQTT/AABBCCDDEEFF', true],
    ['home/+/BTtoMQTT/+', 'home/gw1/BTtoMQTT', false],
    ['home/+/BTtoMQTT/+', 'home/gw1/LWT', false],
    ['a/#', 'a', true],
    ['a/#', 'a/b/c', true],
    ['a/#', 'ab', false],
    ['#', 'a/b', true],
    ['+/+', 'a/b', true],
    ['#', '$SYS/broker', false],
    ['+/broker', '$SYS/broker', false],
    ['$SYS/#', '$SYS/broker', true],
  ])('%s matches %s: %s', (filter, topic, expected) => {
    expect(topicMatches(filter, topic)).toBe(expected);
  });
});

describe('SubscriptionTable', () => {
  it('sends a message to the exact and the matching wildcard handlers, once each', () => {
    const table = new SubscriptionTable();
    const seen: string[] = [];
    expect(table.add('p/announce', (topic) => seen.push(`exact ${topic}`))).toBe(true);
    expect(table.add('p/announce', (topic) => seen.push(`exact2 ${topic}`))).toBe(false);
    expect(table.add('p/+', (topic) => seen.push(`wild ${topic}`))).toBe(true);
    table.dispatch('p/announce', Buffer.from('x'), () => {});
    table.dispatch('p/status', Buffer.from('x'), () => {});
    table.dispatch('q/announce', Buffer.from('x'), () => {});
    expect(seen).toEqual(['exact p/announce', 'exact2 p/announce', 'wild p/announce', 'wild p/status']);
    expect(table.filters()).toEqual(['p/announce', 'p/+']);
  });

  it('sends each of two alternating exact topics to its own handlers, and to one added after the first message', () => {
    const table = new SubscriptionTable();
    const seen: string[] = [];
    table.add('a/announce', (topic, payload) => seen.push(`a ${topic} ${payload.toString()}`));
    table.add('b/announce', (topic, payload) => seen.push(`b ${topic} ${payload.toString()}`));
    // Fresh strings, as every message's topic is.
    const topic = (text: string): string => Buffer.from(text).toString();
    table.dispatch(topic('a/announce'), Buffer.from('1'), () => {});
    table.dispatch(topic('a/announce'), Buffer.from('2'), () => {});
    table.dispatch(topic('b/announce'), Buffer.from('3'), () => {});
    table.add('b/announce', (topic, payload) => seen.push(`late ${topic} ${payload.toString()}`));
    table.dispatch(topic('b/announce'), Buffer.from('4'), () => {});
    table.dispatch(topic('a/announce'), Buffer.from('5'), () => {});
    table.dispatch(topic('c/announce'), Buffer.from('6'), () => {});
    expect(seen).toEqual([
      'a a/announce 1',
      'a a/announce 2',
      'b b/announce 3',
      'b b/announce 4',
      'late b/announce 4',
      'a a/announce 5',
    ]);
  });

  it('keeps dispatching when a handler throws, and reports the error', () => {
    const table = new SubscriptionTable();
    const errors: unknown[] = [];
    let calls = 0;
    table.add('t', () => {
      throw new Error('boom');
    });
    table.add('t', () => calls++);
    table.dispatch('t', Buffer.alloc(0), (error) => errors.push(error));
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it.each(['', 'a/#/b', 'a/b#', 'a/+b', 'a+/b'])('refuses the malformed filter %j', (filter) => {
    expect(() => new SubscriptionTable().add(filter, () => {})).toThrow(PanicPairError);
  });
});

describe('reconnectDelay', () => {
  it('starts at 1 s, doubles, and stays at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
});
