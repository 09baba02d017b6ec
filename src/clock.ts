// Every duration runs on the monotonic clock; the wall clock only stamps
// records and messages. A Raspberry Pi has no real-time clock: it boots with a stale time and jumps
// when NTP sets it, and such a jump must shorten or stretch no TTL, window, cool-down or retry.

/** Milliseconds on a clock that never jumps (an arbitrary origin: compare, never display). */
export type MonotonicClock = () => number;
/** Milliseconds since the epoch, as the system's (possibly wrong) wall clock says. */
export type WallClock = () => number;

export const monotonicNow: MonotonicClock = () => performance.now();
export const wallNow: WallClock = () => Date.now();

/** Whole seconds since the monotonic instant `at`; null when nothing happened yet. */
export function secondsSince(at: number | undefined, now: number = monotonicNow()): number | null {
  return at === undefined ? null : Math.max(0, Math.round((now - at) / 1000));
}

/** The wall time of a monotonic instant: the wall clock now, less how long ago the instant was. */
export function wallTimeOf(at: number, clocks: { monotonic: MonotonicClock; wall: WallClock }): number {
  return clocks.wall() - (clocks.monotonic() - at);
}

export const CLOCK_UNSET = "the system clock is not set; TLS cannot check the API's certificate until NTP sets it";

/** A wall clock earlier than the package's own build has plainly never been set (a Pi before NTP). */
export function wallClockIsUnset(builtAt: number | undefined, now: number = wallNow()): boolean {
  return builtAt !== undefined && now < builtAt;
}
