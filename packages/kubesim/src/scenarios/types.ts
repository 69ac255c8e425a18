/** What every scenario is given. */
export interface ScenarioOptions {
  /** The apiserver version; kubelets run it unless the scenario says otherwise. */
  version: string;
  /** Sim time at seeding (reboot-required-since marks are relative to it). */
  now: Date;
  /** How many nodes (`demo` and `fleet`; SCENARIO_NODES has the defaults). */
  nodes?: number;
  /** `fleet`: pods per node, the node agent included, at most 110. @default 20 */
  podsPerNode?: number;
}
