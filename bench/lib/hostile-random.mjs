// A small seeded generator for the hostile bench's attacks, so that a run can be repeated.
let state = 1;

export function seed(value) {
  state = Number(value) >>> 0 || 1;
}

export const random = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
export const pick = (list) => list[Math.floor(random() * list.length)];
export const int = (min, max) => min + Math.floor(random() * (max - min + 1));
export const bytes = (max) => Buffer.from(Array.from({ length: Math.floor(random() * max) }, () => Math.floor(random() * 256)));
export const text = (max) => bytes(max).toString('latin1');
