#!/bin/sh
# kubemaint's kubelet upgrade for kubeadm nodes (upgrade.method: kubeadm, docs/upgrades.md). The
# executor runs it on the host (nsenter into PID 1's mount namespace, `sh -c <this script>`) after
# the node is drained; it follows "Upgrading Linux nodes" of the Kubernetes documentation with the
# community package repositories (pkgs.k8s.io), one minor version at a time:
#
#   apt (Debian, Ubuntu)       dnf (RHEL, Rocky, Alma, CentOS Stream, Oracle, Fedora)
#   the repository file        /etc/apt/sources.list.d/kubernetes.list   /etc/yum.repos.d/kubernetes.repo
#   is moved to the target minor (…/core:/stable:/v1.XX/deb/ or …/rpm/), then
#   kubeadm is installed       apt-mark unhold, apt-get update,          dnf install --disableexcludes=kubernetes
#                              apt-get install kubeadm=1.XX.Y-*, hold     kubeadm-1.XX.Y-*
#   kubeadm upgrade node
#   kubelet and kubectl        likewise                                    likewise
#   systemctl daemon-reload
#
# It does not restart the kubelet: the executor arranges that for after it has exited
# (upgrade.restartCommand), because the new kubelet may recreate every container, the executor's
# too. Run by hand, add --restart.
#
# Usage: kubeadm-upgrade.sh [--dry-run] [--restart] [--family apt|dnf] VERSION
#   VERSION     the kubelet version to reach, v1.31.4 (one minor above the kubelet's at most)
#   --family    apt or dnf; the executor passes it from the node's status.nodeInfo.osImage. Without
#               it, /etc/os-release decides (ID and ID_LIKE).
#   --dry-run   check everything, print what would run and how the repository file would change,
#               change nothing.
#   --restart   systemctl restart kubelet at the end (for a person running it on a node).
#
# Exit codes: 0 done (or nothing to do: the kubelet is already at VERSION); 2 bad arguments or a
# host this script does not know (nothing changed); 3 refused: a minor skipped, a downgrade
# (nothing changed); 4 a step failed (the packages are held again; see the log).
#
# KUBEMAINT_UPGRADE_ROOT prefixes every file path (tests run it against a fake root with stub
# commands on PATH).
set -u

ROOT=${KUBEMAINT_UPGRADE_ROOT:-}
APT_LIST=$ROOT/etc/apt/sources.list.d/kubernetes.list
DNF_REPO=$ROOT/etc/yum.repos.d/kubernetes.repo
OS_RELEASE=$ROOT/etc/os-release

say() { printf 'kubemaint-upgrade: %s\n' "$*"; }
fail() { # code message [hint]
  printf 'kubemaint-upgrade: error: %s\n' "$2" >&2
  [ $# -ge 3 ] && printf 'kubemaint-upgrade: hint: %s\n' "$3" >&2
  exit "$1"
}

dry_run=''
restart=''
family=''
version=''
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=1 ;;
    --restart) restart=1 ;;
    --family)
      [ $# -ge 2 ] || fail 2 '--family needs apt or dnf'
      family=$2
      shift
      ;;
    -*) fail 2 "unknown option $1" 'usage: kubeadm-upgrade.sh [--dry-run] [--restart] [--family apt|dnf] v1.31.4' ;;
    *)
      [ -z "$version" ] || fail 2 "one version only, not also $1"
      version=$1
      ;;
  esac
  shift
done

# --- what to reach, from what ------------------------------------------------------------------
case $version in
  '') fail 2 'which version? e.g. v1.31.4' ;;
esac
plain=${version#v}
case $plain in
  *[!0-9.]* | .* | *. | *..*) fail 2 "\"$version\" is not a version like v1.31.4" ;;
esac
IFS=. read -r major minor patch rest <<EOF
$plain
EOF
[ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] && [ -z "$rest" ] ||
  fail 2 "\"$version\" is not a version like v1.31.4 (major.minor.patch)"

case $family in
  apt | dnf) ;;
  '')
    # Without --family: the host's own word for what it is.
    [ -r "$OS_RELEASE" ] || fail 2 "no --family and no $OS_RELEASE to tell apt from dnf" 'pass --family apt or --family dnf'
    ids=$(sed -n 's/^ID=//p; s/^ID_LIKE=//p' "$OS_RELEASE" | tr -d '"' | tr '\n' ' ')
    case " $ids " in
      *' debian '* | *' ubuntu '*) family=apt ;;
      *' rhel '* | *' fedora '* | *' centos '*) family=dnf ;;
      *) fail 2 "this host ($ids) is neither Debian/Ubuntu nor RHEL-family" 'upgrade.method: command runs an upgrade of your own (docs/upgrades.md)' ;;
    esac
    ;;
  *) fail 2 "--family is apt or dnf, not \"$family\"" ;;
esac

current=$(kubelet --version 2>/dev/null | sed -n 's/^Kubernetes v\{0,1\}\([0-9][0-9.]*\).*/\1/p')
[ -n "$current" ] || fail 2 'cannot tell the kubelet version (kubelet --version)' 'is this a kubeadm node with the kubelet on PATH?'
IFS=. read -r cmajor cminor cpatch crest <<EOF
$current
EOF
[ "$cmajor" = "$major" ] || fail 3 "the kubelet is v$current and v$plain is another major version" 'kubemaint upgrades within a major version only'
if [ "$minor" -gt $((cminor + 1)) ]; then
  fail 3 "v$current → v$plain skips v$major.$((cminor + 1)): kubeadm upgrades one minor version at a time" "upgrade to the newest v$major.$((cminor + 1)).x first"
fi
if [ "$minor" -lt "$cminor" ] || { [ "$minor" -eq "$cminor" ] && [ "$patch" -lt "$cpatch" ]; }; then
  fail 3 "the kubelet is v$current, newer than v$plain: kubemaint does not downgrade"
fi
if [ "$minor" -eq "$cminor" ] && [ "$patch" -eq "$cpatch" ]; then
  say "the kubelet is already v$current; nothing to do"
  exit 0
fi

# --- the repository file --------------------------------------------------------------------
# pkgs.k8s.io has one repository per minor version: the file names it, and moves to the target's.
if [ "$family" = apt ]; then repo=$APT_LIST; kind=deb; else repo=$DNF_REPO; kind=rpm; fi
[ -r "$repo" ] || fail 2 "no $repo: this node's packages do not come from the Kubernetes community repositories (pkgs.k8s.io)" 'upgrade.method: command runs an upgrade of your own (docs/upgrades.md)'
grep -q "pkgs\.k8s\.io/core:/stable:/v[0-9]*\.[0-9]*/$kind/" "$repo" ||
  fail 2 "$repo does not name https://pkgs.k8s.io/core:/stable:/v1.XX/$kind/ (the legacy apt.kubernetes.io and yum.kubernetes.io repositories are gone)" 'move the node to pkgs.k8s.io (Kubernetes documentation, "Changing the package repository"), or use upgrade.method: command'
from=$(sed -n "s|.*pkgs\.k8s\.io/core:/stable:/v\([0-9]*\.[0-9]*\)/$kind/.*|\1|p" "$repo" | head -n 1)

# --- the steps ------------------------------------------------------------------------------
# The executor enters only the host's mount namespace (nsenter -m): its pod keeps its own network,
# where the host's resolver (127.0.0.53 of systemd-resolved), proxy and routes are not what they are
# on the host. apt, dnf and kubeadm reach the network, so every step runs in PID 1's network namespace
# too — as on a person's shell on the node. Run by a person (already there), nothing changes.
host_net=''
if [ -z "$ROOT" ]; then
  pid1_net=$(readlink /proc/1/ns/net 2>/dev/null || true)
  if [ -n "$pid1_net" ] && [ "$pid1_net" != "$(readlink /proc/$$/ns/net 2>/dev/null || true)" ]; then
    command -v nsenter >/dev/null 2>&1 ||
      fail 2 "this shell is not in the host's network namespace and the host has no nsenter to enter it" 'install util-linux on the node'
    host_net='nsenter --net=/proc/1/ns/net --'
  fi
fi

run() { # the command, printed; in a dry run only printed
  if [ -n "$dry_run" ]; then
    say "would run: $*"
    return 0
  fi
  say "running: $*"
  # shellcheck disable=SC2086 # empty, or nsenter and its arguments
  $host_net "$@"
}

held=''
step() { # run, and on failure give the packages their hold back and stop
  run "$@" && return 0
  status=$?
  if [ "$family" = apt ] && [ -n "$held" ]; then
    # shellcheck disable=SC2086 # a list of package names
    apt-mark hold $held >/dev/null 2>&1 || true
  fi
  fail 4 "step failed (exit $status): $*" 'the node is left as it was after the last step that worked; see the lines above'
}

say "kubelet v$current → v$plain on a $family host$([ -n "$dry_run" ] && printf ' (dry run: nothing changes)')"
if [ "$from" != "$major.$minor" ]; then
  if [ -n "$dry_run" ]; then
    say "would rewrite $repo: v$from → v$major.$minor"
  else
    say "rewriting $repo: v$from → v$major.$minor"
    tmp=$repo.kubemaint-tmp
    sed "s|\(pkgs\.k8s\.io/core:/stable:/v\)[0-9]*\.[0-9]*\(/$kind/\)|\1$major.$minor\2|g" "$repo" >"$tmp" &&
      mv "$tmp" "$repo" || fail 4 "could not rewrite $repo"
  fi
fi

if [ "$family" = apt ]; then
  export DEBIAN_FRONTEND=noninteractive
  keep_config='-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold'
  held='kubeadm'
  step apt-mark unhold kubeadm
  step apt-get update
  # shellcheck disable=SC2086 # the dpkg options split into words
  step apt-get install -y $keep_config "kubeadm=$plain-*"
  step apt-mark hold kubeadm
  held=''
  step kubeadm upgrade node
  held='kubelet kubectl'
  step apt-mark unhold kubelet kubectl
  # shellcheck disable=SC2086
  step apt-get install -y $keep_config "kubelet=$plain-*" "kubectl=$plain-*"
  step apt-mark hold kubelet kubectl
  held=''
else
  # The repository's exclude= line is the hold: only --disableexcludes=kubernetes installs them.
  step dnf install -y "kubeadm-$plain-*" --disableexcludes=kubernetes
  step kubeadm upgrade node
  step dnf install -y "kubelet-$plain-*" "kubectl-$plain-*" --disableexcludes=kubernetes
fi
step systemctl daemon-reload
if [ -n "$restart" ]; then
  step systemctl restart kubelet
else
  say 'the kubelet restarts when the executor has exited (upgrade.restartCommand)'
fi
say "$([ -n "$dry_run" ] && printf 'dry run done: nothing was changed' || printf 'done: v%s installed' "$plain")"
