/**
 * The folder of host-command shims the sim puts first on the PATH of every pod it runs as a
 * process: `nsenter`, `systemctl`, `reboot`, `shutdown`, `halt`, `poweroff`, `kill`, `init`,
 * `telinit` and `systemd-run`, each `kubemaint-sim-host --as NAME "$@"` (host-shim.mjs says what
 * they do on a simulated node). A pod process that calls one of them by name, as kured and
 * kubemaint's own production settings do, reaches the simulated host, never the machine that runs
 * the sim (DESIGN invariant 11).
 *
 * Written at run time into a private temporary folder (mode 0700, a name nobody can guess) rather
 * than shipped: the launcher's path differs between a checkout and the installed package, and a
 * shared, predictable folder could be planted by another user.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOST_SHIMS } from './host-shim.mjs';

/** A word for sh: single-quoted, its own quotes closed and escaped. */
const shQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

export interface HostShims {
  dir: string;
  remove(): void;
}

/** Writes the shims; they run `node LAUNCHER --as NAME …` with this very node. */
export function writeHostShims(launcher: string): HostShims {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-shims-'));
  for (const name of HOST_SHIMS) {
    const file = join(dir, name);
    const node = shQuote(process.execPath);
    writeFileSync(file, `#!/bin/sh\nexec ${node} ${shQuote(launcher)} --as ${name} "$@"\n`);
    chmodSync(file, 0o755);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
