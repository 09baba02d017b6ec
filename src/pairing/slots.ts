// A counting semaphore: at most `size` holders at once, the rest wait in arrival order.
export class Slots {
  readonly #size: number;
  #held = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#size = size;
  }

  get held(): number {
    return this.#held;
  }

  async acquire(): Promise<() => void> {
    if (this.#held < this.#size) {
      this.#held++;
    } else {
      // The releaser hands its slot straight to us, so `held` never dips and rises again.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#held--;
    };
  }
}
