#!/usr/bin/env bash
# What real VM nodes need from the machine (Debian's packages): QEMU's x86 system emulator (TCG; KVM
# does not run guests here), socat (the apiserver forward into each VM), mmdebstrap (the node's root
# file system), e2fsprogs (mke2fs -d: disk images without loop mounts; debugfs and e2label in the
# tests), ssh, openssl for the node certificates; dpkg-deb, apt-ftparchive and gpg for the test apt
# repository (apt-repo.ts), curl for its test. Installed when missing (root with apt-get), else a
# clear failure, by scripts/test-deps.sh; npm run test:node runs this first.
set -euo pipefail
exec bash "$(dirname "$0")/../test-deps.sh" real-node-deps \
  qemu-system-x86_64=qemu-system-x86 socat=socat mmdebstrap=mmdebstrap mke2fs=e2fsprogs \
  debugfs=e2fsprogs e2label=e2fsprogs ssh=openssh-client ssh-keygen=openssh-client openssl=openssl tar=tar \
  dpkg-deb=dpkg apt-ftparchive=apt-utils gpg=gnupg curl=curl
