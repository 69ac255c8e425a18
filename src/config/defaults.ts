/**
 * The embedded demo config (used when no file is given: the sim with its demo fleet, approvals
 * from anyone the sim authenticates, which is any local user on the CLI) and the defaults written
 * back as a file for `kubemaint config print-defaults`.
 */
import { stringify } from 'yaml';
import type { z } from 'zod';
import { TO_FILE } from './fields.js';
import { ConfigSchema, type FileConfig } from './schema.js';

export const DEMO_CONFIG_SOURCE = 'the embedded demo config';

// Any local user may approve on the CLI: the demo runs against the embedded sim, and whoever can
// run `npx kubemaint approve` there already owns the whole (simulated) cluster. The CLI acts as its
// Kubernetes identity: against the embedded sim that is the sim's administrator (groups
// system:masters and system:authenticated), and `--as alice` impersonates alice, whom the sim puts
// in system:authenticated. So the group every authenticated user is in admits them all, and
// `--as alice` then `--as bob` are two different persons for the two-person rule.
export const DEMO_CONFIG_TEXT = `cluster:
  type: sim
  sim:
    scenario: demo
approval:
  approvers:
    kubernetes:
      groups: [system:authenticated]
`;

interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
}

/** Every setting an empty file gets, as YAML that parses back to the same config. */
export function defaultsAsYaml(): string {
  const defaults = ConfigSchema.parse({});
  return stringify(toFile(ConfigSchema, defaults));
}

/** Writes a parsed config back in file form: durations as `15m` again, limits as `10%`. */
export function toFile(schema: z.core.$ZodType, value: unknown): unknown {
  const inverse = TO_FILE.get(schema as z.ZodType);
  if (inverse !== undefined) return inverse(value as never);
  const def = schema._zod.def as unknown as Def;
  if (['optional', 'default', 'prefault', 'nullable'].includes(def.type) && def.innerType) {
    return toFile(def.innerType, value);
  }
  if (def.type === 'pipe' && def.in) return toFile(def.in, value);
  if (def.type === 'object' && def.shape && value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const field = def.shape[key];
      if (item !== undefined) out[key] = field === undefined ? item : toFile(field, item);
    }
    return out;
  }
  return value;
}

export type { FileConfig };
