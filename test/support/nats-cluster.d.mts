import type { ChildProcess } from 'node:child_process';

export interface NatsNode {
  name: string;
  clientPort: number;
  clusterPort: number;
  httpPort: number;
  mqttPort: number;
  /** mqtt://127.0.0.1:<mqttPort> */
  address: string;
  configFile: string;
  /** The last of its log (stderr). */
  output: string;
  child?: ChildProcess;
  exited?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** The nodes' MQTT addresses as `--central` takes them: URL,URL,... */
  addresses(list?: NatsNode[]): string;
  kill(node: NatsNode): Promise<void>;
  start(node: NatsNode): Promise<void>;
  stop(): Promise<void>;
}

export function findNatsServer(): string | undefined;
export function healthy(httpPort: number): Promise<boolean>;
export function startNatsCluster(binary: string, size?: number, options?: { replicas?: number; extraConfig?: string }): Promise<NatsCluster>;
