/** A MaintenanceRequest as the tick leaves it for the executor: approved, nothing done yet. */
import type { MaintenanceRequest } from '../../src/core/request.js';

export function approvedRequest(
  node: string,
  extra: Partial<MaintenanceRequest> = {},
): MaintenanceRequest {
  const at = '2026-11-22T01:00:00.000Z';
  return {
    id: 'r-abc123',
    node,
    action: 'reboot',
    state: 'approved',
    reason: 'reboot-required label',
    requestedBy: 'detector',
    createdAt: at,
    updatedAt: at,
    approvals: [{ by: 'U123', at }],
    history: [
      { from: null, to: 'proposed', at, by: 'detector' },
      { from: 'proposed', to: 'approved', at, by: 'U123' },
    ],
    ...extra,
  };
}
