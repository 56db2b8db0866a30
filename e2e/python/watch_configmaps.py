"""Lists, changes and watches ConfigMaps with the Kubernetes Python client.

Usage: watch_configmaps.py KUBECONFIG NAMESPACE

Prints one JSON line per step: the list, then each watch event seen (type, name, data),
until the DELETED event of the ConfigMap it made. Exits non-zero on any error.
"""
import json
import sys

from kubernetes import client, config, watch


def main() -> None:
    kubeconfig, namespace = sys.argv[1], sys.argv[2]
    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
    listed = v1.list_namespaced_config_map(namespace)
    print(json.dumps({"list": [c.metadata.name for c in listed.items], "resourceVersion": listed.metadata.resource_version}), flush=True)

    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py"), data={"k": "1"})
    v1.create_namespaced_config_map(namespace, body)
    v1.patch_namespaced_config_map("py", namespace, {"data": {"k": "2"}})
    v1.delete_namespaced_config_map("py", namespace)

    w = watch.Watch()
    for event in w.stream(v1.list_namespaced_config_map, namespace, resource_version=listed.metadata.resource_version, timeout_seconds=30):
        obj = event["object"]
        print(json.dumps({"type": event["type"], "name": obj.metadata.name, "data": obj.data}), flush=True)
        if event["type"] == "DELETED" and obj.metadata.name == "py":
            w.stop()


if __name__ == "__main__":
    main()
