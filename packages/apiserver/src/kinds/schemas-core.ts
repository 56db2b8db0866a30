/** Schemas of the other core/v1 kinds: Namespace, ConfigMap, Secret, Service, ServiceAccount, Event, Node, Endpoints. */
import type { SchemaDefinitions } from '@kplane/api';
import {
  CORE, MICROTIME, TIME, addKind, atomicList, bool, enumStr, int32, intOrString, mapList, obj, open, quantityMap, ref, refObj, str, strList, strMap,
} from './schema-dsl.js';

const conditions = (name: string, what: string) => mapList(name, what, ['type']);

/** Core/v1 schemas besides the Pod's. */
export function coreDefinitions(): SchemaDefinitions {
  const defs: SchemaDefinitions = {
    [`${CORE}NamespaceSpec`]: obj('Desired state of a namespace.', {
      finalizers: strList('Finalizers that must be empty before the namespace is removed from storage.'),
    }),
    [`${CORE}NamespaceStatus`]: obj('Observed state of a namespace.', {
      conditions: conditions(`${CORE}NamespaceCondition`, 'Latest observations of the namespace\'s state.'),
      phase: enumStr('Active or Terminating.', ['Active', 'Terminating']),
    }),
    [`${CORE}NamespaceCondition`]: obj(
      'One condition of a namespace.',
      {
        lastTransitionTime: ref(TIME, 'Last time the condition changed.'),
        message: str('Human-readable details.'),
        reason: str('CamelCase reason.'),
        status: str('True, False or Unknown.', { default: '' }),
        type: str('Condition type.', { default: '' }),
      },
      { required: ['type', 'status'] },
    ),
    [`${CORE}ServiceSpec`]: obj('Desired state of a service.', {
      allocateLoadBalancerNodePorts: bool('Whether node ports are allocated for a LoadBalancer service. Defaults to true.'),
      clusterIP: str('The virtual IP of the service, allocated when empty; "None" makes a headless service. Immutable once set.'),
      clusterIPs: strList('The IPs of the service, one per IP family; the first equals clusterIP.'),
      externalIPs: strList('IPs for which nodes also accept traffic for this service.'),
      externalName: str('DNS name a service of type ExternalName aliases.'),
      externalTrafficPolicy: enumStr('How external traffic is routed: Cluster or Local.', ['Cluster', 'Local']),
      healthCheckNodePort: int32('Health check node port for Local external traffic policy.'),
      internalTrafficPolicy: enumStr('How traffic from inside the cluster is routed: Cluster or Local.', ['Cluster', 'Local']),
      ipFamilies: strList('IP families (IPv4, IPv6) of the service.'),
      ipFamilyPolicy: enumStr('SingleStack, PreferDualStack or RequireDualStack.', ['PreferDualStack', 'RequireDualStack', 'SingleStack']),
      loadBalancerClass: str('The load balancer implementation for a LoadBalancer service.'),
      loadBalancerIP: str('Deprecated: requested load balancer IP.'),
      loadBalancerSourceRanges: strList('Client CIDRs a load balancer accepts.'),
      ports: {
        type: 'array',
        description: 'The ports the service exposes.',
        items: refObj(`${CORE}ServicePort`),
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'port',
        'x-kubernetes-patch-strategy': 'merge',
      },
      publishNotReadyAddresses: bool('Publish endpoints for pods that are not ready.'),
      selector: { ...strMap('Routes traffic to pods whose labels match. Empty: endpoints are managed outside Kubernetes.'), 'x-kubernetes-map-type': 'atomic' },
      sessionAffinity: enumStr('ClientIP or None (default).', ['ClientIP', 'None']),
      sessionAffinityConfig: open('Settings of session affinity (clientIP.timeoutSeconds).'),
      trafficDistribution: str('Preference for how traffic is distributed to endpoints.'),
      type: enumStr('How the service is exposed: ClusterIP (default), NodePort, LoadBalancer or ExternalName.', ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']),
    }),
    [`${CORE}ServicePort`]: obj(
      'A port of a service.',
      {
        appProtocol: str('Application protocol of the port, e.g. http or kubernetes.io/h2c.'),
        name: str('Name of the port, a DNS label; required when the service has several ports.'),
        nodePort: int32('Port on every node for NodePort and LoadBalancer services; allocated when unset.'),
        port: int32('The port the service exposes.', { default: 0 }),
        protocol: enumStr('TCP (default), UDP or SCTP.', ['SCTP', 'TCP', 'UDP'], { default: 'TCP' }),
        targetPort: intOrString('Number or name of the port on the pods. Defaults to port.'),
      },
      { required: ['port'] },
    ),
    [`${CORE}ServiceStatus`]: obj('Observed state of a service.', {
      conditions: conditions('io.k8s.apimachinery.pkg.apis.meta.v1.Condition', 'Current conditions of the service.'),
      loadBalancer: refObj(`${CORE}LoadBalancerStatus`, 'The load balancer, if any.'),
    }),
    [`${CORE}LoadBalancerStatus`]: obj('Status of a load balancer.', {
      ingress: atomicList(`${CORE}LoadBalancerIngress`, 'Ingress points of the load balancer.'),
    }),
    [`${CORE}LoadBalancerIngress`]: obj('An ingress point of a load balancer.', {
      hostname: str('DNS name of the ingress point.'),
      ip: str('IP of the ingress point.'),
      ipMode: str('How traffic reaches the IP: VIP or Proxy.'),
      ports: { type: 'array', description: 'Status of the load balancer ports.', items: open('Status of one port.'), 'x-kubernetes-list-type': 'atomic' },
    }),
    [`${CORE}EventSource`]: obj('The component that reported an event.', {
      component: str('Component that generated the event.'),
      host: str('Node name on which the event was generated.'),
    }),
    [`${CORE}EventSeries`]: obj('Information on a series of repeated events.', {
      count: int32('Number of occurrences so far.'),
      lastObservedTime: ref(MICROTIME, 'Time of the last occurrence.'),
    }),
    [`${CORE}NodeSpec`]: obj('Desired state of a node.', {
      configSource: open('Deprecated dynamic kubelet configuration source.'),
      externalID: str('Deprecated.'),
      podCIDR: str('The pod IP range assigned to the node.'),
      podCIDRs: { ...strList('Pod IP ranges of the node, one per family.'), 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      providerID: str('Id of the node assigned by the cloud provider.'),
      taints: atomicList(`${CORE}Taint`, 'Taints repelling pods that do not tolerate them.'),
      unschedulable: bool('Makes the node unschedulable for new pods (kubectl cordon).'),
    }),
    [`${CORE}Taint`]: obj(
      'A taint of a node.',
      {
        effect: enumStr('NoSchedule, PreferNoSchedule or NoExecute.', ['NoExecute', 'NoSchedule', 'PreferNoSchedule'], { default: '' }),
        key: str('Taint key.', { default: '' }),
        timeAdded: ref(TIME, 'When a NoExecute taint was added.'),
        value: str('Taint value.'),
      },
      { required: ['key', 'effect'] },
    ),
    [`${CORE}NodeStatus`]: obj('Observed state of a node.', {
      addresses: mapList(`${CORE}NodeAddress`, 'Addresses of the node: InternalIP, ExternalIP, Hostname.', ['type']),
      allocatable: quantityMap('Resources available to pods. Defaults to capacity.'),
      capacity: quantityMap('Total resources of the node.'),
      conditions: conditions(`${CORE}NodeCondition`, 'Current conditions: Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable.'),
      daemonEndpoints: open('Ports of the daemons on the node (kubeletEndpoint.Port).'),
      images: { type: 'array', description: 'Images present on the node.', items: open('A container image: names and sizeBytes.'), 'x-kubernetes-list-type': 'atomic' },
      nodeInfo: refObj(`${CORE}NodeSystemInfo`, 'General information about the node.'),
      phase: str('Deprecated.'),
    }),
    [`${CORE}NodeAddress`]: obj(
      'An address of a node.',
      { address: str('The address.', { default: '' }), type: str('Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.', { default: '' }) },
      { required: ['type', 'address'] },
    ),
    [`${CORE}NodeCondition`]: obj(
      'One condition of a node.',
      {
        lastHeartbeatTime: ref(TIME, 'Last time the condition was reported.'),
        lastTransitionTime: ref(TIME, 'Last time the condition changed status.'),
        message: str('Human-readable details.'),
        reason: str('CamelCase reason.'),
        status: str('True, False or Unknown.', { default: '' }),
        type: str('Condition type.', { default: '' }),
      },
      { required: ['type', 'status'] },
    ),
    [`${CORE}NodeSystemInfo`]: obj('Identifiers and versions of a node.', {
      architecture: str('Architecture.', { default: '' }),
      bootID: str('Boot id.', { default: '' }),
      containerRuntimeVersion: str('Container runtime version, e.g. containerd://1.7.', { default: '' }),
      kernelVersion: str('Kernel version.', { default: '' }),
      kubeProxyVersion: str('Deprecated.', { default: '' }),
      kubeletVersion: str('Kubelet version.', { default: '' }),
      machineID: str('Machine id.', { default: '' }),
      operatingSystem: str('Operating system.', { default: '' }),
      osImage: str('OS image, e.g. Debian GNU/Linux 12.', { default: '' }),
      systemUUID: str('System UUID.', { default: '' }),
    }),
    [`${CORE}EndpointSubset`]: obj('A group of addresses sharing a set of ports.', {
      addresses: atomicList(`${CORE}EndpointAddress`, 'Ready addresses.'),
      notReadyAddresses: atomicList(`${CORE}EndpointAddress`, 'Addresses not ready yet.'),
      ports: atomicList(`${CORE}EndpointPort`, 'Ports available on every address.'),
    }),
    [`${CORE}EndpointAddress`]: obj(
      'One endpoint address.',
      {
        hostname: str('Hostname of the endpoint.'),
        ip: str('IP of the endpoint.', { default: '' }),
        nodeName: str('Node hosting the endpoint.'),
        targetRef: ref(`${CORE}ObjectReference`, 'The object providing the endpoint, usually a pod.'),
      },
      { required: ['ip'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${CORE}EndpointPort`]: obj(
      'A port of an endpoint.',
      {
        appProtocol: str('Application protocol.'),
        name: str('Name of the port, matching the service port name.'),
        port: int32('Port number.', { default: 0 }),
        protocol: str('TCP, UDP or SCTP.'),
      },
      { required: ['port'], 'x-kubernetes-map-type': 'atomic' },
    ),
  };
  addKind(defs, CORE, '', 'v1', 'Namespace', 'A namespace: a scope for names and a unit of isolation and policy.', {
    spec: refObj(`${CORE}NamespaceSpec`, 'Desired state of the namespace.'),
    status: refObj(`${CORE}NamespaceStatus`, 'Observed state of the namespace. Read-only.'),
  });
  addKind(defs, CORE, '', 'v1', 'ConfigMap', 'Non-confidential configuration data, as key/value pairs, for pods to consume.', {
    binaryData: { type: 'object', description: 'Binary values, base64-encoded. Keys must not also appear in data.', additionalProperties: { type: 'string', format: 'byte' } },
    data: strMap('Configuration values. Keys consist of alphanumerics, "-", "_" or ".".'),
    immutable: bool('When true, data and binaryData cannot be changed (only metadata).'),
  });
  addKind(defs, CORE, '', 'v1', 'Secret', 'Confidential data, such as a password, token or key, as base64-encoded key/value pairs.', {
    data: { type: 'object', description: 'The secret values, base64-encoded. Keys consist of alphanumerics, "-", "_" or ".".', additionalProperties: { type: 'string', format: 'byte' } },
    immutable: bool('When true, data cannot be changed (only metadata).'),
    stringData: strMap('Write-only convenience: plain-text values merged into data on write (they win over data). Never returned.'),
    type: str('Used to process the secret data programmatically, e.g. Opaque (default) or kubernetes.io/tls.'),
  });
  addKind(defs, CORE, '', 'v1', 'Service', 'A named abstraction of a network service: a stable IP and DNS name routing to a set of pods.', {
    spec: refObj(`${CORE}ServiceSpec`, 'Desired behavior of the service.'),
    status: refObj(`${CORE}ServiceStatus`, 'Observed state of the service. Read-only.'),
  });
  addKind(defs, CORE, '', 'v1', 'ServiceAccount', 'An identity for processes running in pods.', {
    automountServiceAccountToken: bool('Whether pods using this account get an API token mounted automatically.'),
    imagePullSecrets: atomicList(`${CORE}LocalObjectReference`, 'Secrets used to pull images for pods using this account.'),
    secrets: mapList(`${CORE}ObjectReference`, 'Secrets pods using this account may use.', ['name']),
  });
  addKind(defs, CORE, '', 'v1', 'Event', 'A report of something that happened in the cluster.', {
    action: str('What action was taken or failed.'),
    count: int32('How many times the event occurred.'),
    eventTime: ref(MICROTIME, 'When the event was first observed.'),
    firstTimestamp: ref(TIME, 'When the event was first recorded.'),
    involvedObject: refObj(`${CORE}ObjectReference`, 'The object the event is about.'),
    lastTimestamp: ref(TIME, 'When the most recent occurrence was recorded.'),
    message: str('Human-readable description of the event.'),
    reason: str('Short, machine-understandable reason, e.g. Scheduled.'),
    related: ref(`${CORE}ObjectReference`, 'A secondary object involved.'),
    reportingComponent: str('Controller that emitted the event, e.g. kubernetes.io/kubelet.', { default: '' }),
    reportingInstance: str('Id of the controller instance.', { default: '' }),
    series: ref(`${CORE}EventSeries`, 'Data about the series this event represents.'),
    source: refObj(`${CORE}EventSource`, 'The component reporting the event.'),
    type: str('Normal or Warning.'),
  }, { required: ['metadata', 'involvedObject'] });
  addKind(defs, CORE, '', 'v1', 'Node', 'A worker node of the cluster.', {
    spec: refObj(`${CORE}NodeSpec`, 'Desired behavior of the node.'),
    status: refObj(`${CORE}NodeStatus`, 'Most recently observed status of the node.'),
  });
  addKind(defs, CORE, '', 'v1', 'Endpoints', 'The addresses implementing a service, grouped in subsets.', {
    subsets: atomicList(`${CORE}EndpointSubset`, 'Sets of addresses and the ports they share.'),
  });
  return defs;
}
