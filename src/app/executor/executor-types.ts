/**
 * The executor's ports, input and outcome: shared by its steps (run-executor.ts) and its endings
 * (executor-finish.ts) without either importing the other.
 */
import type { ExitCode } from '../../core/exit-codes.js';
import type { Logger } from '../../log.js';
import type {
  Clock,
  EventsPort,
  HostPort,
  LeasesPort,
  NodesPort,
  PodsPort,
  RequestsPort,
} from '../ports.js';
import type { DrainReport } from './drain-types.js';
import type { ExecutorSettings } from './settings.js';

export interface ExecutorPorts {
  nodes: NodesPort;
  requests: RequestsPort;
  pods: PodsPort;
  leases: LeasesPort;
  events: EventsPort;
  host: HostPort;
  clock: Clock;
  log: Logger;
}

export interface ExecutorInput {
  node: string;
  requestId: string;
  settings: ExecutorSettings;
  /** The executor's own pod, `namespace/name` (from the downward API). */
  selfPod?: string;
  /** The Job running us, recorded on the request. */
  job?: string;
}

export interface ExecutorOutcome {
  exitCode: ExitCode;
  message: string;
  drain?: DrainReport;
}
