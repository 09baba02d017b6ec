import path from 'node:path';
import type { Authenticator } from '../authentication/authenticator.js';
import type { Config } from '../config/index.js';
import { CONTROL_SOCKET_NAME } from '../config/locations.js';
import type { ControlHandlers } from '../control/handlers.js';
import { startControlServer, type ControlServer } from '../control/server.js';
import type { Logger } from '../log/logger.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { StatusReport } from '../status/status-report.js';
import type { Supervisor } from '../supervision/supervisor.js';
import { pairingWithKeys } from './authentication-side.js';
import { guardPairing, guardWindow, type Hearing } from './hearing-guard.js';
import { deviceRows } from './supervision-side.js';

// What the daemon answers on its control socket (and, through the same handlers, on the page):
// each request type mapped to the engine, supervision and authentication.

export interface ControlSide {
  handlers: ControlHandlers;
  server: ControlServer;
}

export async function startControlSide(parts: {
  config: Config;
  /** The hub's own customer: a pair request without one links to it. */
  hubCustomerId: number;
  engine: PairingEngine;
  supervisor: Supervisor;
  authenticator: Authenticator;
  hearing: Hearing;
  status: () => StatusReport;
  logger: Logger;
}): Promise<ControlSide> {
  const { config, engine, supervisor, authenticator, hearing } = parts;
  const handlers: ControlHandlers = {
    status: parts.status,
    devices: () => deviceRows(engine.devices(), supervisor, authenticator),
    scan: (seconds, signal) => engine.scan(seconds, signal),
    forget: async (deviceId) => {
      const outcome = await engine.forget(deviceId);
      await authenticator.forget(deviceId);
      return outcome;
    },
    pair: guardPairing(pairingWithKeys({ engine, authenticator, supervisor, hubCustomerId: parts.hubCustomerId }), hearing),
    window: guardWindow((seconds, options) => engine.openWindow(seconds, options), hearing),
    household: () => engine.household(),
  };
  const socketPath = path.join(config.runtimeDir, CONTROL_SOCKET_NAME);
  const server = await startControlServer({ socketPath, logger: parts.logger, handlers });
  return { handlers, server };
}
