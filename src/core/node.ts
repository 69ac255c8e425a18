/**
 * One node, as kubemaint sees it: the one definition of a node view. The executor works on its facts
 * (`NodeInfo`); the control plane also sees its conditions and its request (`NodeView`); detection
 * and verification read the parts they need (`Pick`s of these, never types of their own).
 */
import type { MaintenanceRequest } from './request.js';
import type { NodeTaint } from './waiting-taint.js';

/** The facts of one Node the executor reads and writes. */
export interface NodeInfo {
  name: string;
  uid: string;
  resourceVersion: string;
  unschedulable: boolean;
  bootId: string;
  kubeletVersion: string;
  /** status.nodeInfo.osImage ("Ubuntu 22.04.4 LTS"): which built-in kubelet upgrade fits. */
  osImage?: string;
  /** Ready condition status: 'True' | 'False' | 'Unknown' (missing counts as 'Unknown'). */
  ready: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** spec.taints, when the view was read from a Node (absent in views built without one). */
  taints?: readonly NodeTaint[];
}

/**
 * A node as the control plane sees it: its facts plus conditions and its request (the active
 * MaintenanceRequest for the node, else its latest one).
 */
export interface NodeView extends NodeInfo {
  /** Condition type → status, for detection through node conditions (Node Problem Detector). */
  conditions: Record<string, string>;
  /** The Ready condition's lastTransitionTime: when `ready` last changed (the flapping gate). */
  readySince?: string;
  request?: MaintenanceRequest;
  /** The request object's resourceVersion: every status write is conditional on it. */
  requestVersion?: string;
  /** False for a request a person created that kubemaint has not accepted yet (no status). */
  requestAccepted?: boolean;
  /** The node no longer exists, but a request for it does (the view carries only the name). */
  missing?: boolean;
  /** Why a request object for this node could not be read (reported, never thrown). */
  requestError?: string;
}
