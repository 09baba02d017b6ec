/** `panic-pair check`: the installer's pre-flight; exit 0 when every enabled check passes, 1 otherwise. */
export async function checkCommand(options: { config?: string; json?: boolean }): Promise<void> {
  const { runChecks, renderReport } = await import('../../check/index.js');
  const report = await runChecks({ env: process.env, ...(options.config === undefined ? {} : { configFile: options.config }) });
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, process.stdout.isTTY === true));
  process.exitCode = report.ok ? 0 : 1;
  // A native Bluetooth binding that keeps a handle open after the probe closed it must not make
  // the pre-flight hang once it has answered. Unref'd: it fires only when something holds on.
  setTimeout(() => process.exit(), 1_000).unref();
}
