// What every benchmark script imports: the parts it runs against (services.mjs), its life and
// cleanup (lifecycle.mjs), and report(), the one-line result format that bench/run.mjs collects.
// Loopback only; everything a script starts is stopped when it ends, even when it fails.
export * from './lifecycle.mjs';
export * from './services.mjs';

/** What bench/run.mjs looks for at the start of a line of a script's stdout. */
export const RESULT_MARK = 'BENCH_RESULT ';

/**
 * One figure, printed for bench/run.mjs. `target` is `{ op: '<=' | '>=', value }`, or undefined
 * for a figure that informs without a target; `checks` are conditions the figure depends on
 * (exact request counts and the like): any false one fails the figure.
 */
export function report({ figure, ratio, target, detail, checks = {} }) {
  const failedChecks = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name);
  let pass;
  if (target !== undefined) {
    const meets = target.op === '<=' ? ratio <= target.value : ratio >= target.value;
    pass = meets && failedChecks.length === 0;
  } else {
    pass = failedChecks.length === 0 ? null : false;
  }
  const line = { figure, ratio, target, pass, detail, failedChecks };
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(line)}\n`);
}
