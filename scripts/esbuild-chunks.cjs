// esbuild plugin for serverless-esbuild (serverless.yml custom.esbuild.plugins). With `splitting`,
// each function's lazily imported code (the Slack app behind the ack, ADR 0018) becomes chunk files
// beside its entry; serverless-esbuild builds every function into the same folder and zips, for
// each function, everything there except the OTHER functions' entries (`functions/tick.*`). Naming
// each function's chunks `<function>.chunks/…` puts them under that rule, so the tick's zip never
// carries the Slack app's chunks and the other way round.
const { basename } = require('node:path');

module.exports = [
  {
    name: 'kubemaint-chunks-per-function',
    setup(build) {
      const { entryPoints } = build.initialOptions;
      const entry = Array.isArray(entryPoints) ? entryPoints[0] : Object.values(entryPoints)[0];
      const file = typeof entry === 'string' ? entry : entry.in;
      const name = basename(file).replace(/\.[^.]+$/, '');
      build.initialOptions.chunkNames = `${name}.chunks/[name]-[hash]`;
    },
  },
];
