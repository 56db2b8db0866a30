"""Runs exec and port-forward against a pod with the Kubernetes Python client's stream module.

Usage: stream_pod.py KUBECONFIG NAMESPACE POD PORT

Prints one JSON line: the output of an exec that echoes its stdin and the pod's name, the exit
code of a failing exec, the reply of an HTTP request sent through a port-forward to PORT, and
the error a port-forward to an unforwarded port gets. Exits non-zero on any error.
"""
import json
import sys

from kubernetes import client, config
from kubernetes.stream import portforward, stream


def main() -> None:
    kubeconfig, namespace, pod, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()

    out = stream(v1.connect_get_namespaced_pod_exec, pod, namespace, command=["sh", "-c", 'echo "pod $KPLANE_POD"'], stderr=True, stdin=False, stdout=True, tty=False)

    resp = stream(v1.connect_get_namespaced_pod_exec, pod, namespace, command=["sh", "-c", "head -n 1; exit 4"], stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
    resp.write_stdin("from stdin\n")
    resp.run_forever(timeout=10)
    echoed = resp.read_stdout()
    code = resp.returncode
    resp.close()

    pf = portforward(v1.connect_get_namespaced_pod_portforward, pod, namespace, ports=str(port))
    sock = pf.socket(port)
    sock.setblocking(True)
    sock.sendall(b"GET /hello HTTP/1.0\r\n\r\n")
    reply = b""
    # The reply is read up to its Content-Length: the connection stays open until the forward ends.
    while b"\r\n\r\n" not in reply or len(reply.split(b"\r\n\r\n", 1)[1]) < int(reply.lower().split(b"content-length: ")[1].split(b"\r\n")[0]):
        chunk = sock.recv(4096)
        if not chunk:
            break
        reply += chunk
    sock.close()
    pf.close()

    unmapped = portforward(v1.connect_get_namespaced_pod_portforward, pod, namespace, ports=str(port + 1))
    s2 = unmapped.socket(port + 1)
    s2.setblocking(True)
    s2.recv(1)
    error = unmapped.error(port + 1)
    unmapped.close()

    print(json.dumps({"exec": out, "echoed": echoed, "code": code, "reply": reply.decode("latin-1").split("\r\n")[-1], "error": error}), flush=True)


if __name__ == "__main__":
    main()
