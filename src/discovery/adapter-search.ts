import type { AdapterChoice } from '../config/adapter.js';
import type { AdapterFinder, FoundAdapter } from './adapter-finder.js';

// Which adapter to open for the configured choice. By index: that hciN, when the kernel lists it.
// By address: the adapter known to have it; current kernels show no address in sysfs, so an
// adapter whose address is not known yet is opened on trial, its address read from its controller
// and remembered while it stays listed, and the next one tried when it is not the one.

export class AdapterSearch {
  readonly #choice: AdapterChoice;
  readonly #finder: AdapterFinder;
  /** Addresses read from adapters opened on trial, by name, while they stay listed. */
  readonly #learned = new Map<string, string>();

  constructor(choice: AdapterChoice, finder: AdapterFinder) {
    this.#choice = choice;
    this.#finder = finder;
  }

  /** The adapter to open now, or undefined while none fits. */
  next(): FoundAdapter | undefined {
    const choice = this.#choice;
    const listed = this.#finder.adapters();
    if (listed !== null) for (const name of this.#learned.keys()) if (!listed.some((a) => a.name === name)) this.#learned.delete(name);
    // Without sysfs the socket decides: the configured index, or hci0 to try an address on.
    const candidates = listed ?? ['index' in choice ? { name: `hci${choice.index}`, index: choice.index } : { name: 'hci0', index: 0 }];
    if ('index' in choice) return candidates.find((a) => a.index === choice.index);
    return candidates.find((a) => this.addressOf(a) === choice.address) ?? candidates.find((a) => this.addressOf(a) === undefined);
  }

  /** The address known for `adapter`: shown by sysfs, or read on trial. */
  addressOf(adapter: FoundAdapter): string | undefined {
    return adapter.address ?? this.#learned.get(adapter.name);
  }

  /** Whether `adapter` is the configured one, as far as is known: by index always; by address once known. */
  fits(adapter: FoundAdapter): boolean {
    return 'index' in this.#choice || this.addressOf(adapter) === this.#choice.address;
  }

  /** `adapter`'s controller reported `address`. */
  learn(adapter: FoundAdapter, address: string): void {
    this.#learned.set(adapter.name, address);
  }
}
