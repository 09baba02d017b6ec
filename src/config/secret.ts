import { inspect } from 'node:util';

// A secret that cannot leak by accident: string conversion, JSON and util.inspect (which pino and
// console use) all print a placeholder. Only reveal() gives the value, at the one place that needs it.
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
