/** The sim's CEL: compile once, evaluate against JSON (compile.ts); used by admission policies and CRD rules. */
export { compile, CelCompileError, CelEvaluationError, type CelProgram } from './compile.js';
export { fromCel, toCel } from './values.js';
export { rewriteOptionals } from './optional-rewrite.js';
