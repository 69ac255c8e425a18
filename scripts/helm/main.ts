/**
 * `npm run helm -- <helm arguments>`: Helm built from its Go module once per version (build.ts), then
 * run with the arguments given, for machines without a Helm of their own. `npm run -s helm -- version`
 * builds it (the first time a few minutes) and says which it is.
 */
import { spawnSync } from 'node:child_process';
import { RealClusterError } from '../real-cluster/errors.js';
import { buildHelm, helmVersion } from './build.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

try {
  const { helm } = await buildHelm(helmVersion(), say);
  const run = spawnSync(helm, process.argv.slice(2), { stdio: 'inherit' });
  process.exit(run.status ?? 1);
} catch (error) {
  if (!(error instanceof RealClusterError)) throw error;
  say(`helm: ${error.message}`);
  process.exit(1);
}
