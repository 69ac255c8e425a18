/**
 * Every conformance case, by behaviour family, in the order the suite runs them.
 */
import type { CaseGroup } from '../case.js';
import { accessCases } from './access.js';
import { applyCases } from './apply.js';
import { admissionCases } from './admission.js';
import { crdCases } from './crds.js';
import { cronJobCases } from './cronjobs.js';
import { daemonSetRolloutCases } from './daemonset-rollout.js';
import { defaultingCases } from './defaults.js';
import { deletionCases } from './deletion.js';
import { deploymentRevisionCases } from './deployment-revisions.js';
import { errorCases } from './errors.js';
import { eventCases } from './events.js';
import { evictionCases } from './eviction.js';
import { jobCases } from './jobs.js';
import { kindTableCases } from './kind-tables.js';
import { leaseCases } from './leases.js';
import { listCases } from './lists.js';
import { openApiCases } from './openapi.js';
import { patchCases } from './patches.js';
import { podLogCases } from './pod-logs.js';
import { priorityCases } from './priority.js';
import { scaleCases } from './scale.js';
import { serviceCases } from './services.js';
import { statefulSetRolloutCases } from './statefulset-rollout.js';
import { subresourceCases } from './subresources.js';
import { taintCases } from './taints.js';
import { volumeClaimCases } from './volume-claims.js';
import { watchCases } from './watch.js';
import { wireFormatCases } from './wire-formats.js';

export const GROUPS: readonly CaseGroup[] = [
  errorCases,
  leaseCases,
  patchCases,
  applyCases,
  listCases,
  watchCases,
  wireFormatCases,
  openApiCases,
  evictionCases,
  deletionCases,
  subresourceCases,
  scaleCases,
  deploymentRevisionCases,
  daemonSetRolloutCases,
  statefulSetRolloutCases,
  serviceCases,
  cronJobCases,
  volumeClaimCases,
  kindTableCases,
  podLogCases,
  jobCases,
  defaultingCases,
  taintCases,
  crdCases,
  accessCases,
  admissionCases,
  eventCases,
  priorityCases,
];
