#!/usr/bin/env node
// `kubectl maint …`: kubectl runs any `kubectl-<name>` on the PATH as `kubectl <name>`, with the
// words after the name as its arguments. The same CLI as `kubemaint`; its help says `kubectl maint`.
import { launch } from './launch.js';

await launch('kubectl maint');
