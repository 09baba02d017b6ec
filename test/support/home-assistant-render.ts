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
