/**
 * `npm run bench`: every benchmark, one after another, figures printed as JSON. Timing goals live
 * here and in BENCHMARKS.md, never in tests. Pass names to run only some: `npm run bench -- sim-scale`.
 */
import { runFleetRollBench } from './control-fleet-roll.js';
import { runControlTickBench } from './control-tick.js';
import { runDrainBench } from './drain-vs-kubectl.js';
import { runFunctionsColdBench } from './functions-cold.js';
import { runHandoffBench } from './serve-handoff.js';
import { runSimScaleBench } from './sim-scale.js';
import { runSlackClicksBench } from './slack-clicks.js';

const BENCHES: Record<string, () => Promise<unknown>> = {
  'sim-scale': () => runSimScaleBench(5_000, 20),
  'drain-vs-kubectl': async () => [await runDrainBench(20, false), await runDrainBench(20, true)],
  'control-tick': () => runControlTickBench(5_000),
  'fleet-roll': () => runFleetRollBench(),
  'serve-handoff': () => runHandoffBench(6),
  'slack-clicks': () => runSlackClicksBench(200, 20),
  // Needs the bundles of `npm run package` (run it first).
  'functions-cold': () => runFunctionsColdBench(15),
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown benchmark: ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}\n`,
  );
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHES)) {
  process.stderr.write(`running ${name}...\n`);
  const result = await BENCHES[name]!();
  process.stdout.write(`${JSON.stringify({ bench: name, result }, null, 2)}\n`);
}
