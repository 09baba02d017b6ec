import { afterAll, describe, expect, it } from 'vitest';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const apiUrl = (value: string): string | undefined => scratch.load({ env: { PANIC_PAIR_API_URL: value } }).apiUrl;

describe('PANIC_PAIR_API_URL', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/panic-api/v2', 'https://api.example.com'],
    ['https://api.example.com/panic-api/v2/', 'https://api.example.com'],
    ['https://api.example.com/base/panic-api/v2/', 'https://api.example.com/base'],
    ['https://API.example.com:8443/base/', 'https://api.example.com:8443/base'],
    ['  https://api.example.com  ', 'https://api.example.com'],
  ])('normalises %s to %s', (given, expected) => {
    expect(apiUrl(given)).toBe(expected);
  });

  it.each(['http://127.0.0.1:8080', 'http://127.3.4.5', 'http://localhost:3000/panic-api/v2', 'http://[::1]:8080'])(
    'accepts http to the loopback host %s',
    (given) => {
      expect(apiUrl(given)).toMatch(/^http:\/\//);
    },
  );

  it.each(['http://api.example.com', 'http://192.168.1.2:8080', 'http://10.0.0.1', 'http://[::2]'])(
    'refuses http to %s, saying to use https',
    (given) => {
      expect(configError(() => apiUrl(given)).message).toMatch(/^PANIC_PAIR_API_URL must use https: .*; got "http:/);
    },
  );

  it('refuses a user name or password in the address without echoing it', () => {
    const message = configError(() => apiUrl('https://me:pa55word@api.example.com')).message;
    expect(message).toMatch(/must not hold a user name or password/);
    expect(message).not.toContain('pa55word');
  });
});
