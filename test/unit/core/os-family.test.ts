import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packageFamily } from '../../../src/core/os-family.js';

describe("the upgrade script for a node's OS image", () => {
  const cases: [string, 'apt' | 'dnf' | RegExp][] = [
    ['Ubuntu 22.04.4 LTS', 'apt'],
    ['Ubuntu 24.04.1 LTS', 'apt'],
    ['Debian GNU/Linux 12 (bookworm)', 'apt'],
    ['Red Hat Enterprise Linux 9.4 (Plow)', 'dnf'],
    ['Rocky Linux 9.3 (Blue Onyx)', 'dnf'],
    ['AlmaLinux 9.4 (Seafoam Ocelot)', 'dnf'],
    ['CentOS Stream 9', 'dnf'],
    ['Oracle Linux Server 9.3', 'dnf'],
    ['Fedora Linux 40 (Server Edition)', 'dnf'],
    ['Talos (v1.7.6)', /Talos upgrades Kubernetes with talosctl upgrade-k8s/],
    ['Bottlerocket OS 1.20.3 (aws-k8s-1.30)', /Bottlerocket nodes are replaced/],
    ['Amazon Linux 2023.5.20240805', /EKS nodes get a new kubelet with a new AMI/],
    ['Container-Optimized OS from Google', /GKE upgrades its node pools itself/],
    ['Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)', /Flatcar updates/],
    [
      'Arch Linux',
      /runs "Arch Linux": kubemaint's kubeadm upgrade covers Debian\/Ubuntu \(apt\) and RHEL-family \(dnf\) nodes$/,
    ],
    ['', /runs an unknown OS \(no osImage\)/],
  ];
  for (const [image, want] of cases) {
    it(`${image || '(none)'} → ${typeof want === 'string' ? want : 'none'}`, () => {
      const answer = packageFamily(image);
      if (typeof want === 'string') assert.deepEqual(answer, { ok: true, family: want });
      else {
        assert.equal(answer.ok, false);
        assert.match(answer.ok ? '' : answer.why, want);
      }
    });
  }
});
