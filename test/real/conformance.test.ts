/**
 * The differential conformance suite on both backends side by side: the same cases (test/conformance)
 * against the real apiserver and against the simulator, so the output lists every behaviour kubemaint
 * depends on with its result on each. Known simulator differences say so under their test.
 */
import { startRealBackend } from '../conformance/real-backend.js';
import { startSimBackend } from '../conformance/sim-backend.js';
import { describeConformance } from '../conformance/suite.js';

describeConformance('real', startRealBackend);
describeConformance('sim', startSimBackend);
