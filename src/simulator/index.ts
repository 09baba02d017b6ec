// The panic-api v2 simulator: the API the spec describes, plus test controls under /__simulator/.
export { startSimulator } from './server.js';
export type { Simulator, SimulatorLogEntry, SimulatorOptions } from './server.js';
export { DEFAULT_SEED, DEFAULT_SEED_CUSTOMER_ID, DEMO_DEPENDANT_CUSTOMER_ID, DEMO_HOUSEHOLD_SEED, loadSeed, seedSchema } from './seed.js';
export type { Seed } from './seed.js';
export type { Fault, Faults } from './faults.js';
export type { SimulatorStats } from './stats.js';
