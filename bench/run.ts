/**
 * `npm run bench`: every benchmark, one after another, figures printed as JSON. Timing goals live
 * here and in BENCHMARKS.md, never in tests. Pass names to run only some: `npm run bench -- sim-scale`.
 */
import { runDrainBench } from './drain-vs-kubectl.js';
import { runSimScaleBench } from './sim-scale.js';

const BENCHES: Record<string, () => Promise<unknown>> = {
  'sim-scale': () => runSimScaleBench(5_000, 20),
  'drain-vs-kubectl': () => runDrainBench(20),
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
