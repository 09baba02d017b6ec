// A NATS Server cluster on loopback, for the fleet's tests and its bench alike (bench/ is plain
// JavaScript, so this is too; nats-cluster.d.mts gives the tests its types): nodes with JetStream
// and MQTT, the retained messages in a stream replicated on every node (`stream_replicas`), as
// docs/operator/monitoring.md configures one. A node is ready when its GET /healthz answers 200,
// which NATS gives only once JetStream is current with the cluster's meta leader: before that an MQTT
// connect may be refused.
import { spawn } from 'node:child_process';
import { accessSync, appendFileSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './loopback.mjs';

/** A node's store is recovered and its streams caught up well within this on a loaded CI machine. */
const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 100;
const STOP_TIMEOUT_MS = 10_000;
const running = new Set();

/** nats-server's path (Debian installs it in /usr/bin), or undefined when it is not installed. */
export function findNatsServer() {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/bin']) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, 'nats-server'), constants.X_OK);
      return path.join(dir, 'nats-server');
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Whether the node's monitoring port says it is ready (200 from /healthz). */
export async function healthy(httpPort) {
  try {
    const response = await fetch(`http://127.0.0.1:${httpPort}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function configOf(node, nodes, dir, options) {
  const routes = nodes.map((other) => `nats-route://127.0.0.1:${other.clusterPort}`).join(', ');
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.clientPort}`,
    `http: 127.0.0.1:${node.httpPort}`,
    `jetstream { store_dir: "${path.join(dir, node.name)}", max_memory_store: 256MB, max_file_store: 2GB }`,
    `cluster { name: panic-pair-test, listen: 127.0.0.1:${node.clusterPort}, routes: [ ${routes} ] }`,
    `mqtt { listen: 127.0.0.1:${node.mqttPort}, stream_replicas: ${options.replicas ?? nodes.length} }`,
    ...(options.extraConfig === undefined ? [] : [options.extraConfig]),
  ].join('\n');
}

/**
 * Starts `size` nodes (default 3) and waits for each /healthz. `binary`: nats-server's path.
 * Options: `replicas` (default: every node), `extraConfig` (more lines for every node).
 */
export async function startNatsCluster(binary, size = 3, options = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-nats-'));
  const nodes = [];
  for (let i = 0; i < size; i++) {
    nodes.push({ name: `n${i + 1}`, clientPort: await freePort(), clusterPort: await freePort(), httpPort: await freePort(), mqttPort: await freePort() });
  }
  for (const node of nodes) {
    node.address = `mqtt://127.0.0.1:${node.mqttPort}`;
    node.configFile = path.join(dir, `${node.name}.conf`);
    node.output = '';
    writeFileSync(node.configFile, configOf(node, nodes, dir, options));
  }
  const launch = (node) => {
    const child = spawn(binary, ['-c', node.configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    running.add(child);
    // Kept whole in <dir>/<name>.log while the cluster runs, for a node that dies in a long run.
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      node.output = (node.output + chunk).slice(-8_000);
      appendFileSync(path.join(dir, `${node.name}.log`), chunk);
    });
    node.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }));
    node.child = child;
  };
  const ready = async (node) => {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await healthy(node.httpPort))) {
      if (node.child.exitCode !== null || node.child.signalCode !== null || Date.now() > deadline) {
        throw new Error(`nats-server ${node.name} did not become ready (GET /healthz): ${node.output.trim().split('\n').slice(-5).join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  const stopNode = async (node, signal) => {
    const child = node.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await node.exited;
    clearTimeout(timer);
  };
  for (const node of nodes) launch(node);
  try {
    await Promise.all(nodes.map(ready));
  } catch (error) {
    await Promise.all(nodes.map((node) => stopNode(node, 'SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    nodes,
    addresses: (list = nodes) => list.map((node) => node.address).join(','),
    /** `kill -9`: the node dies without a word to its clients or its peers. */
    kill: (node) => stopNode(node, 'SIGKILL'),
    /** Starts a stopped node again on its ports and store, and waits for its /healthz. */
    async start(node) {
      launch(node);
      await ready(node);
    },
    async stop() {
      await Promise.all(nodes.map((node) => stopNode(node, 'SIGTERM')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// A run that dies halfway must not leave nodes behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
