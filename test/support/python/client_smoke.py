"""Drives a platform-apiserver with the official Python client (Debian python3-kubernetes).

Usage: client_smoke.py KUBECONFIG NAMESPACE. Prints one JSON document of what the client saw;
the Jest test (test/integration/python-client.test.ts) checks it.
"""
import json
import sys

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
ns = sys.argv[2]
v1 = client.CoreV1Api()
out = {}


def api_error(fn):
    try:
        fn()
    except client.ApiException as e:
        body = json.loads(e.body)
        return {"status": e.status, "reason": body.get("reason"), "message": body.get("message")}
    return None


v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
out["namespaces"] = sorted(n.metadata.name for n in v1.list_namespace().items)

s = v1.create_namespaced_secret(ns, client.V1Secret(
    metadata=client.V1ObjectMeta(name="s1", labels={"app": "py"}), string_data={"password": "hunter2"}))
out["created"] = {"name": s.metadata.name, "data": s.data, "type": s.type, "uid": bool(s.metadata.uid)}
out["duplicate"] = api_error(lambda: v1.create_namespaced_secret(ns, client.V1Secret(metadata=client.V1ObjectMeta(name="s1"))))
out["missing"] = api_error(lambda: v1.read_namespaced_secret("nope", ns))
out["invalid"] = api_error(lambda: v1.create_namespaced_config_map(ns, client.V1ConfigMap(
    metadata=client.V1ObjectMeta(name="Bad_Name"), data={"k": "v"})))

v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c1", labels={"app": "py"}), data={"k": "v"}))
listed = v1.list_namespaced_config_map(ns, label_selector="app=py")
out["listed"] = [c.metadata.name for c in listed.items]

# Changes after a list's resourceVersion, replayed by a watch from it (watch=True on the wire).
secrets = v1.list_namespaced_secret(ns)
v1.patch_namespaced_secret("s1", ns, {"metadata": {"labels": {"patched": "yes"}}})
v1.delete_namespaced_secret("s1", ns)
events = []
w = watch.Watch()
for ev in w.stream(v1.list_namespaced_secret, ns, resource_version=secrets.metadata.resource_version, timeout_seconds=30):
    events.append([ev["type"], ev["object"].metadata.name, ev["object"].metadata.labels])
    if len(events) == 2:
        w.stop()
out["events"] = events

q = v1.create_namespaced_resource_quota(ns, client.V1ResourceQuota(
    metadata=client.V1ObjectMeta(name="q"), spec=client.V1ResourceQuotaSpec(hard={"configmaps": "1"})))
out["quota"] = {"name": q.metadata.name, "hard": q.spec.hard}
# A new quota restricts nothing until the quota controller has written its status (as in kube:
# admission reads status.hard), so wait for that before going over it.
def quota_counted(obj):
    return bool(((obj.status or client.V1ResourceQuotaStatus()).used or {}).get("configmaps"))


if not quota_counted(v1.read_namespaced_resource_quota("q", ns)):
    for ev in watch.Watch().stream(v1.list_namespaced_resource_quota, ns, field_selector="metadata.name=q",
                                   resource_version=q.metadata.resource_version, timeout_seconds=30):
        if quota_counted(ev["object"]):
            break
    else:
        raise SystemExit("the quota controller never wrote quota q's status")
out["over_quota"] = api_error(lambda: v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c2"))))

print(json.dumps(out))
