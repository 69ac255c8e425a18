// Preloaded with `node --import` (after tsx) by tests that ask which modules a command loads: appends the URL
// of every module the process resolves to the file named by $RECORD_MODULES.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env['RECORD_MODULES'];
if (out) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      appendFileSync(out, `${resolved.url}\n`);
      return resolved;
    },
  });
}
