import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { allowedHost } from '../../src/web/guards.js';
import { SESSION_COOKIE, SESSION_IDLE_MS, Sessions } from '../../src/web/sessions.js';
import { BLOCK_MS, SignInGate } from '../../src/web/sign-in.js';

// The page's sign-in, sessions and Host rule on a clock the test moves.

function clock() {
  let now = 1_000;
  return { read: () => now, advance: (ms: number) => (now += ms) };
}

const withCookie = (id: string): IncomingMessage => ({ headers: { cookie: `other=1; ${SESSION_COOKIE}=${id}` } }) as IncomingMessage;

describe('sign-in', () => {
  it('blocks an address for a minute after 5 wrong codes, the right code included, and only that address', () => {
    const time = clock();
    const gate = new SignInGate(new Secret('right-code'), time.read);
    for (let i = 0; i < 5; i++) expect(gate.attempt('10.0.0.9', `wrong-${i}`)).toBe('wrong');
    expect(gate.attempt('10.0.0.9', 'right-code')).toBe('blocked');
    expect(gate.attempt('10.0.0.7', 'right-code')).toBe('accepted');
    time.advance(BLOCK_MS - 1);
    expect(gate.attempt('10.0.0.9', 'right-code')).toBe('blocked');
    time.advance(1);
    expect(gate.attempt('10.0.0.9', 'right-code')).toBe('accepted');
  });

  it('accepts only the exact code', () => {
    const gate = new SignInGate(new Secret('right-code'));
    expect(gate.attempt('a', 'right-code ')).toBe('wrong');
    expect(gate.attempt('a', 'RIGHT-CODE')).toBe('wrong');
    expect(gate.attempt('a', '')).toBe('wrong');
    expect(gate.attempt('a', 'right-code')).toBe('accepted');
  });
});

describe('sessions', () => {
  it('end after 30 idle minutes, and activity keeps them', () => {
    const time = clock();
    const sessions = new Sessions({ clock: time.read });
    const id = sessions.open();
    time.advance(SESSION_IDLE_MS - 1);
    expect(sessions.touch(withCookie(id))).toBeDefined();
    time.advance(SESSION_IDLE_MS);
    expect(sessions.touch(withCookie(id))).toBeDefined();
    const session = sessions.touch(withCookie(id)) ?? '';
    time.advance(SESSION_IDLE_MS);
    expect(sessions.isLive(session)).toBe(true); // the live channel asks without counting as activity
    time.advance(1);
    expect(sessions.isLive(session)).toBe(false);
    expect(sessions.touch(withCookie(id))).toBeUndefined();
  });

  it('end at sign-out, and a made-up id is no session', () => {
    const sessions = new Sessions();
    const id = sessions.open();
    const session = sessions.touch(withCookie(id));
    expect(session).toBeDefined();
    sessions.close(session ?? '');
    expect(sessions.touch(withCookie(id))).toBeUndefined();
    expect(sessions.touch(withCookie('guessed'))).toBeUndefined();
    expect(sessions.touch({ headers: {} } as IncomingMessage)).toBeUndefined();
  });
});

describe('the Host rule', () => {
  it('takes IP literals, localhost, the hub name and <name>.local, and nothing else', () => {
    for (const host of ['192.168.1.5', '192.168.1.5:8080', '[fe80::1]:8080', '[::1]', 'localhost:8080', 'hub-7', 'HUB-7.local:8443', 'hub-7.local.']) {
      expect(allowedHost(host, 'hub-7'), host).toBe(true);
    }
    for (const host of [undefined, '', 'evil.com', 'hub-7.evil.com', 'hub-7.local.evil.com', '192.168.1.5.nip.io', '[not-ip]:80', 'hub-8.local', 'a b']) {
      expect(allowedHost(host, 'hub-7'), String(host)).toBe(false);
    }
  });
});
