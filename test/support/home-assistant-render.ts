import { execFileSync } from 'node:child_process';

// Home Assistant renders an MQTT entity's templates with Jinja2 in Python: `value` is the payload,
// `value_json` the payload parsed as JSON when it parses, and the result is stripped. Rendering
// them with the real Jinja2 (python3-jinja2, installed by .ci/run) in a sandboxed environment, as
// Home Assistant's own is, catches what a hand-written imitation would not: a JSON `true` is
// Python's `True`, a missing key is Undefined, `tojson` quotes the way Python does.

const RENDER = `
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment()
out = []
for job in json.load(sys.stdin):
    variables = {"value": job["payload"]}
    try:
        variables["value_json"] = json.loads(job["payload"])
    except ValueError:
        pass
    out.append(env.from_string(job["template"]).render(**variables).strip())
print(json.dumps(out))
`;

export interface RenderJob {
  template: string;
  payload: string;
}

// The python3 first on PATH may be one without Jinja2 (a virtual environment); Debian's has it
// once python3-jinja2 is installed.
const PYTHONS = ['python3', '/usr/bin/python3'];

/** Renders each template against its payload, all in one python3 process. */
export function renderTemplates(jobs: RenderJob[]): string[] {
  const failures: string[] = [];
  for (const python of PYTHONS) {
    try {
      const output = execFileSync(python, ['-c', RENDER], { input: JSON.stringify(jobs), encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
      return JSON.parse(output) as string[];
    } catch (error) {
      failures.push(`${python}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`rendering with Jinja2 needs python3 with jinja2 (Debian: python3-jinja2; .ci/run installs it):\n${failures.join('\n')}`);
}

/** What a binary_sensor shows for a rendered value: `on`, `off`, or unchanged (null) for anything else. */
export function binarySensorState(rendered: string, config: { payload_on?: string; payload_off?: string }): 'on' | 'off' | null {
  if (rendered === (config.payload_on ?? 'ON')) return 'on';
  if (rendered === (config.payload_off ?? 'OFF')) return 'off';
  return null;
}

/** What an enum sensor shows: the value when it is one of the options, otherwise it is ignored (null). */
export function enumSensorState(rendered: string, options: readonly string[]): string | null {
  return options.includes(rendered) ? rendered : null;
}

/** The fields Home Assistant's MQTT update entity takes from a rendered value. */
export interface UpdateEntityFields {
  installed_version?: unknown;
  latest_version?: unknown;
  title?: unknown;
  release_summary?: unknown;
  release_url?: unknown;
}

/**
 * What an MQTT `update` entity takes from a rendered value (homeassistant/components/mqtt/update.py):
 * nothing (null) for an empty value or `{}`; a JSON object's known fields; any other text as the
 * installed version. A field left out keeps what the entity had.
 */
export function updateEntityFields(rendered: string): UpdateEntityFields | null {
  if (rendered === '' || rendered === '{}') return null;
  let value: unknown;
  try {
    value = JSON.parse(rendered);
  } catch {
    return { installed_version: rendered };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { installed_version: rendered };
  const known = ['installed_version', 'latest_version', 'title', 'release_summary', 'release_url'];
  return Object.fromEntries(Object.entries(value).filter(([key]) => known.includes(key)));
}
