/**
 * The differential conformance suite (test/conformance) on the simulator, in `npm test`; the real
 * apiserver side runs in `npm run test:real` (test/real/conformance.test.ts).
 */
import { startSimBackend } from '../conformance/sim-backend.js';
import { describeConformance } from '../conformance/suite.js';

describeConformance('sim', startSimBackend);
