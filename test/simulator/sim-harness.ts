import { afterEach } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

export const TOKEN = 'sim-token-3b1d';
export const AUTH = { authorization: `Bearer ${TOKEN}` };
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

const open: Simulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((simulator) => simulator.close()));
});

export async function simulator(options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  const started = await startSimulator({ token: TOKEN, ...options });
  open.push(started);
  return started;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function call(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function post(base: string, body: string, headers: Record<string, string> = JSON_AUTH): Promise<Answer> {
  return call(base, '/panic-api/v2/devices', { method: 'POST', headers, body });
}
