/** Every request state, in the order a request usually meets them (golden file names follow it). */
import { ACTIVE_STATES, FINAL_STATES } from '../../../src/core/request.js';

export const REQUEST_STATES_FOR_TEST = [...ACTIVE_STATES, ...FINAL_STATES];
