#!/usr/bin/env node
// `kubemaint`: the Node version check, then the CLI (launch.js says which build).
import { launch } from './launch.js';

await launch('kubemaint');
