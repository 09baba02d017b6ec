// What a test may wait on a busy machine: two cores shared with container and kernel suites, where
// a process can be preempted for tens of milliseconds and an fsync can take a second. A bound here
// is one that a correct daemon meets on such a machine; a test of a duration measures it on the
// clock the code itself uses, or bounds it by events, rather than by a window of wall time.

/**
 * The longest an `expect.poll` waits for something done over real HTTP or with an fsync (a link
 * through the simulator, a temporary file made durable). vitest's default is 1 s, which a loaded
 * machine's fsync alone can take. Waiting longer costs nothing when the code is right.
 */
export const REAL_IO_TIMEOUT_MS = 20_000;

/**
 * How far two reads of one monotonic instant converted to wall time may differ: each conversion
 * reads both clocks (the wall clock now, less the time since), and a process preempted between the
 * two reads moves it by the time it was away (3 ms seen in a warm run at e45949a).
 */
export const CLOCK_CONVERSION_JITTER_MS = 20;
