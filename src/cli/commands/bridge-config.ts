import { loadConfig } from '../../config/index.js';
import { bridgeFieldsOf, type BridgeFlags } from '../../fleet/bridge-input.js';
import { renderBridge } from '../../fleet/bridge.js';

// `panic-pair bridge-config`: prints the mosquitto bridge that carries this hub's topics to a
// central broker (CONTRACT.md section 16); the installer writes it to /etc/mosquitto/conf.d/.

export function bridgeConfigCommand(options: BridgeFlags & { config?: string; mqttPrefix?: string }): void {
  // The hub's configured prefix (flag, environment, config file, default), nothing else from it.
  const config = loadConfig({ flags: { config: options.config, mqttPrefix: options.mqttPrefix } });
  process.stdout.write(renderBridge(bridgeFieldsOf(options, config.mqttPrefix)));
}
