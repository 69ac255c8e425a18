import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { DEMO_CONFIG_TEXT, defaultsAsYaml } from '../../../src/config/defaults.js';
import { parseConfig } from '../../../src/config/parse.js';
import { ConfigSchema } from '../../../src/config/schema.js';

interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
}

/** Every key the schema accepts, as `slot.concurrency` / `windows[].start`. */
function keyPaths(schema: z.core.$ZodType, prefix = ''): string[] {
  const def = schema._zod.def as unknown as Def;
  if (def.innerType) return keyPaths(def.innerType, prefix);
  if (def.type === 'pipe' && def.in) return keyPaths(def.in, prefix);
  if (def.type === 'array' && def.element) return keyPaths(def.element, `${prefix}[]`);
  if (def.type !== 'object' || !def.shape) return [];
  return Object.entries(def.shape).flatMap(([key, field]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return [path, ...keyPaths(field, path)];
  });
}

const example = readFileSync('kubemaint.example.yaml', 'utf8');
const docs = readFileSync('docs/configuration.md', 'utf8');
const keys = keyPaths(ConfigSchema);

describe('kubemaint.example.yaml', () => {
  it('parses clean', () => {
    const result = parseConfig(example, 'kubemaint.example.yaml');
    assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.problems, null, 2));
  });
  it('shows windows, a freeze and a template, so the example is worth copying', () => {
    const result = parseConfig(example, 'kubemaint.example.yaml');
    assert.ok(result.ok);
    assert.equal(result.config.windows.length, 2);
    assert.equal(result.config.freezes.length, 1);
    assert.ok(result.config.notify.templates.done);
  });
  for (const key of keys) {
    const name = key.split('.').at(-1)?.replace('[]', '') ?? key;
    it(`mentions ${key}`, () => assert.match(example, new RegExp(`\\b${name}\\b`)));
  }
});

describe('docs/configuration.md', () => {
  for (const key of keys) {
    // Templates are documented together as notify.templates.<event>, with each event named.
    const event = /^notify\.templates\.(\w+)$/.exec(key)?.[1];
    it(`documents ${key}`, () =>
      event === undefined
        ? // A section is documented through its keys (`slot.ttl` documents `lock`).
          assert.ok(
            docs.includes(`\`${key}\``) || docs.includes(`\`${key}.`),
            `docs/configuration.md lacks \`${key}\``,
          )
        : assert.ok(
            docs.includes(`\`${event}\``),
            `docs/configuration.md lacks the event ${event}`,
          ));
  }
});

describe('defaults', () => {
  it('print-defaults output parses back to the same config', () => {
    const printed = defaultsAsYaml();
    const result = parseConfig(printed, 'defaults.yaml');
    assert.ok(result.ok, JSON.stringify(result));
    const { secrets: _secrets, ...config } = result.config;
    assert.deepEqual(config, ConfigSchema.parse({}));
    assert.match(printed, /timeout: 15m/);
  });
  it('the embedded demo config runs the sim and lets anyone the sim authenticates approve', () => {
    const result = parseConfig(DEMO_CONFIG_TEXT, 'demo');
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.config.cluster, {
      type: 'sim',
      name: 'sim',
      sim: { scenario: 'demo', nodes: 6, port: 0 },
    });
    // The demo CLI is the sim's administrator, and `--as alice` is alice: both are authenticated.
    assert.deepEqual(result.config.approval.approvers.kubernetes, {
      users: [],
      groups: ['system:authenticated'],
    });
  });
});
