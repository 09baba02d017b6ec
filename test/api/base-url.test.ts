import { describe, expect, it } from 'vitest';
import { apiRoot } from '../../src/api/base-url.js';
import { PanicPairError } from '../../src/errors.js';

describe('apiRoot', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com/panic-api/v2'],
    ['https://api.example.com/', 'https://api.example.com/panic-api/v2'],
    ['https://api.example.com/panic-api/v2', 'https://api.example.com/panic-api/v2'],
    ['https://api.example.com/panic-api/v2/', 'https://api.example.com/panic-api/v2'],
    ['https://api.example.com/gateway', 'https://api.example.com/gateway/panic-api/v2'],
    ['https://api.example.com/gateway/panic-api/v2//', 'https://api.example.com/gateway/panic-api/v2'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/panic-api/v2'],
    ['http://[::1]:8080/panic-api/v2', 'http://[::1]:8080/panic-api/v2'],
    ['  https://api.example.com  ', 'https://api.example.com/panic-api/v2'],
  ])('%s -> %s', (base, root) => {
    expect(apiRoot(base)).toBe(root);
  });

  it('does not strip a prefix that only looks like the version', () => {
    expect(apiRoot('https://api.example.com/panic-api/v20')).toBe('https://api.example.com/panic-api/v20/panic-api/v2');
  });

  it.each([
    ['not a url', /not a URL/],
    ['ftp://api.example.com', /http:\/\/ or https:\/\//],
    ['https://user:s3cr3tpw@api.example.com', /user name or password/],
    ['https://api.example.com/?x=1', /query/],
  ])('refuses %s with a config error', (base, message) => {
    let caught: unknown;
    try {
      apiRoot(base);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PanicPairError);
    expect((caught as PanicPairError).kind).toBe('config');
    expect((caught as PanicPairError).message).toMatch(message);
    expect((caught as PanicPairError).message).not.toContain('s3cr3tpw');
  });
});
