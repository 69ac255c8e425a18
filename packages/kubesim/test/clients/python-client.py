"""The official Kubernetes Python client against a cluster: list, watch and patch as its users call them.

Usage: python python-client.py KUBECONFIG NAMESPACE
Prints one JSON line per step: {"id": ..., "ok": true|false, "detail": ...}. The namespace must not
exist yet; the script creates it and deletes it at the end.
"""

import json
import sys
import threading
import time
import traceback

from kubernetes import client, config, watch

kubeconfig, ns = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
core = client.CoreV1Api()
apps = client.AppsV1Api()


def step(step_id):
    def run(fn):
        try:
            detail = fn()
            print(json.dumps({"id": step_id, "ok": True, "detail": str(detail or "")}), flush=True)
        except Exception as error:  # noqa: BLE001 - any failure is the step's result
            detail = f"{type(error).__name__}: {error}"
            if not isinstance(error, (AssertionError, client.ApiException)):
                detail += "\n" + traceback.format_exc(limit=3)
            print(json.dumps({"id": step_id, "ok": False, "detail": detail[:2000]}), flush=True)

    return run


@step("create namespace")
def _():
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))


@step("list namespaces")
def _():
    names = [n.metadata.name for n in core.list_namespace().items]
    assert ns in names, f"{ns} not in {names}"


@step("list nodes")
def _():
    nodes = core.list_node().items
    assert len(nodes) > 0 and nodes[0].status.node_info.kubelet_version, "no nodes with a kubelet"
    return f"{len(nodes)} nodes"


@step("list pods (all namespaces, label selector)")
def _():
    pods = core.list_pod_for_all_namespaces(label_selector="app", limit=500)
    assert pods.metadata.resource_version, "list without a resourceVersion"
    return f"{len(pods.items)} pods"


@step("list namespaces (paginated)")
def _():
    first = core.list_namespace(limit=1)
    assert len(first.items) == 1, f"{len(first.items)} items on a page of 1"
    assert first.metadata._continue, "no continue token on a partial page"
    assert first.metadata.remaining_item_count, "no remainingItemCount on a partial page"
    rest = core.list_namespace(limit=500, _continue=first.metadata._continue)
    return f"{1 + len(rest.items)} namespaces"


def watch_config_maps(**kwargs):
    """Watches ConfigMaps in ns while creating one; returns the (type, name) events seen."""
    seen = []
    w = watch.Watch()
    name = f"watched-{len(kwargs)}-{int(time.time() * 1000) % 100000}"

    def create_later():
        time.sleep(0.5)
        core.create_namespaced_config_map(
            ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"a": "1"})
        )

    writer = threading.Thread(target=create_later)
    writer.start()
    for event in w.stream(core.list_namespaced_config_map, ns, timeout_seconds=5, **kwargs):
        seen.append((event["type"], event["object"].metadata.name))
        if seen[-1] == ("ADDED", name):
            w.stop()
    writer.join()
    assert ("ADDED", name) in seen, f"no ADDED for {name}; saw {seen}"
    return seen


@step("watch (watch=True, from now)")
def _():
    return watch_config_maps()


@step("watch (from a list's resourceVersion)")
def _():
    rv = core.list_namespaced_config_map(ns).metadata.resource_version
    return watch_config_maps(resource_version=rv)


@step("watch (the raw stream, _preload_content=False)")
def _():
    response = core.list_namespaced_config_map(ns, watch=True, timeout_seconds=1, _preload_content=False)
    first = response.readline().decode()
    # The stream is still open: close the connection rather than hand it back to the pool mid-stream.
    response.close()
    assert json.loads(first).get("type") in ("ADDED", "MODIFIED", "BOOKMARK"), f"not a watch event: {first[:200]}"


@step("watch (watch=True spelled as older clients spell it)")
def _():
    # Clients before 2x lower-cased no booleans: the query said watch=True. Send it that way.
    method, url, headers, body, post = core.api_client.param_serialize(
        "GET",
        "/api/v1/namespaces/{namespace}/configmaps",
        path_params={"namespace": ns},
        query_params=[("watch", "True"), ("timeoutSeconds", "1")],
        auth_settings=["BearerToken"],
    )
    response = core.api_client.call_api(method, url, headers)
    first = response.read().decode().split("\n")[0]
    assert json.loads(first).get("type") == "ADDED", f"not a watch event: {first[:200]}"


@step("patch (strategic merge, the default for a dict)")
def _():
    core.create_namespaced_config_map(
        ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="patched"), data={"a": "1"})
    )
    patched = core.patch_namespaced_config_map("patched", ns, {"data": {"b": "2"}})
    assert patched.data == {"a": "1", "b": "2"}, patched.data


@step("patch (JSON patch, a list)")
def _():
    patched = core.patch_namespaced_config_map(
        "patched", ns, [{"op": "replace", "path": "/data/a", "value": "3"}]
    )
    assert patched.data["a"] == "3", patched.data


@step("patch node (cordon and uncordon)")
def _():
    node = core.list_node().items[-1].metadata.name
    core.patch_node(node, {"spec": {"unschedulable": True}})
    assert core.read_node(node).spec.unschedulable is True
    core.patch_node(node, {"spec": {"unschedulable": None}})
    assert not core.read_node(node).spec.unschedulable


@step("patch deployment scale")
def _():
    apps.create_namespaced_deployment(
        ns,
        {
            "metadata": {"name": "py"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "py"}},
                "template": {
                    "metadata": {"labels": {"app": "py"}},
                    "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]},
                },
            },
        },
    )
    scale = apps.patch_namespaced_deployment_scale("py", ns, {"spec": {"replicas": 2}})
    assert scale.spec.replicas == 2, scale


@step("delete namespace")
def _():
    core.delete_namespace(ns)
