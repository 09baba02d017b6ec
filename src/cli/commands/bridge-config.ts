import { loadConfig } from '../../config/index.js';
import { bridgeFieldsOf, type BridgeFlags } from '../../fleet/bridge-input.js';
import { CLUSTER_CARRIED, renderBridge } from '../../fleet/bridge.js';

// `panic-pair bridge-config`: prints the mosquitto bridge that carries this hub's topics to a
// central broker; the installer writes it to /etc/mosquitto/conf.d/.

export function bridgeConfigCommand(options: BridgeFlags & { config?: string; mqttPrefix?: string }): void {
  // The hub's configured prefix (flag, environment, config file, default), nothing else from it.
  const config = loadConfig({ flags: { config: options.config, mqttPrefix: options.mqttPrefix } });
  const fields = bridgeFieldsOf(options, config.mqttPrefix);
  process.stdout.write(renderBridge(fields));
  // Said on stderr too: whoever redirects the file into conf.d never reads its comments.
  if (fields.protocol === 'mqttv311') {
    process.stderr.write(
      `panic-pair: with --central-protocol mqttv311 the bridge carries only ${CLUSTER_CARRIED.join(', ')}, not the devices' topics: NATS Server 2.9 cuts a bridge that publishes a '.' in a topic, and a button's id may hold one (the file's comments say more)\n`,
    );
  }
}
