import { configTopic, hubAvailability, origin, uniqueId, type HubIdentity } from './home-assistant-ids.js';
import { healthTopic } from './topics.js';

// The hub's `update` entity in Home Assistant: the version it runs and,
// while a rollback is where its latest update stands, the version rolled back from, with why.
// Its state is the retained `<prefix>/health`, which already carries both: the config itself is
// fixed for the hub and changes with nothing the hub does. No command topic: nothing on MQTT
// installs a version.

/**
 * Jinja2, rendered by Home Assistant in Python, to the JSON its MQTT update entity reads. A health
 * without `update` (an older daemon) or with another state shows the running version as the
 * latest. `get` and subscripts rather than attributes: on a dict, `.update` is Python's method.
 * Home Assistant keeps a release summary to 255 characters. An empty result (a cleared health)
 * Home Assistant ignores.
 */
export const UPDATE_TEMPLATE =
  "{% if value_json is mapping and value_json.get('version') is string %}" +
  "{% set u = value_json.get('update') %}" +
  "{% set back = u is mapping and u.get('state') == 'rolled-back' %}" +
  "{{ {'installed_version': value_json['version'], 'latest_version': u['version'] if back else value_json['version'], " +
  "'release_summary': ('update to ' ~ u['version'] ~ ' rolled back to ' ~ u['previous'] ~ (': ' ~ u['reason'] if u['reason'] is string else ''))[:255] if back else none} | tojson }}" +
  '{% endif %}';

const OBJECT_ID = 'update';

/** The update entity's config topic and payload, on the hub's device. */
export function updateConfig(hub: HubIdentity, device: object): [topic: string, payload: string] {
  const payload = {
    name: 'Software',
    unique_id: uniqueId(hub, OBJECT_ID),
    entity_category: 'diagnostic',
    title: 'panic-pair',
    state_topic: healthTopic(hub.prefix),
    value_template: UPDATE_TEMPLATE,
    qos: 1,
    ...hubAvailability(hub),
    device,
    origin: origin(hub),
  };
  return [configTopic(hub, 'update', OBJECT_ID), JSON.stringify(payload)];
}
